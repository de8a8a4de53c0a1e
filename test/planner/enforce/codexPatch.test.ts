// The Codex apply_patch reader against the rules of Codex's own parser (codex-rs/apply-patch,
// parser.rs and invocation.rs): every case here is one of those rules, with the paths Codex would
// write, or a refusal where Codex would refuse (or where the gate cannot be certain).
import assert from 'node:assert/strict';
import { CodexPatchError, parseCodexInvocation, parseCodexPatch, parseCodexScript, patchPaths, rustLines, rustTrim, rustTrimEnd } from '../../../src/planner/enforce/codexPatch';

const wrap = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

describe('codexPatch: Rust string primitives', () => {
  it('rustTrim strips the White_Space set, not JavaScript\'s', () => {
    assert.equal(rustTrim('\u2028 x \u3000'), 'x');
    assert.equal(rustTrim('\u0085x\u0085'), 'x', 'NEL is White_Space in Rust (JavaScript keeps it)');
    assert.equal(rustTrim('\uFEFFx\uFEFF'), '\uFEFFx\uFEFF', 'a BOM is not White_Space (JavaScript strips it)');
    assert.equal(rustTrim('\u200Bx'), '\u200Bx', 'a zero-width space is not White_Space');
  });

  it('rustTrimEnd strips the White_Space set at the end only', () => {
    assert.equal(rustTrimEnd(' x \u00a0\u3000\u0085'), ' x');
    assert.equal(rustTrimEnd('x\uFEFF'), 'x\uFEFF');
    assert.equal(rustTrimEnd(' \t '), '');
  });

  const lines: Array<[string, string[]]> = [
    ['a\nb', ['a', 'b']],
    ['a\r\nb\r\n', ['a', 'b']],
    ['a\r\r\nb', ['a\r', 'b']],
    ['a\rb', ['a\rb']],
    ['a\u2028b', ['a\u2028b']],
    ['a\n\nb\n', ['a', '', 'b']],
    ['', []],
  ];
  for (const [text, expected] of lines) {
    it(`rustLines(${JSON.stringify(text)}) splits on \\n only`, () => assert.deepEqual(rustLines(text), expected));
  }
});

describe('codexPatch: parseCodexPatch reads headers as Codex does', () => {
  const cases: Array<{ name: string; patch: string; paths: string[] }> = [
    { name: 'add, update, delete', patch: wrap('*** Add File: a.ts', '+x', '*** Update File: b.ts', '@@', '-x', '+y', '*** Delete File: c.ts'), paths: ['a.ts', 'b.ts', 'c.ts'] },
    { name: 'a move writes both sides', patch: wrap('*** Update File: old.ts', '*** Move to: new.ts', '@@', '-x', '+y'), paths: ['old.ts', 'new.ts'] },
    { name: 'a header is trimmed: an indented second header is a header', patch: wrap('*** Add File: src/a/ok.ts', '+x', '  *** Add File: .claude/settings.json', '+{}'), paths: ['src/a/ok.ts', '.claude/settings.json'] },
    { name: 'a header ending in U+2028 (one line for Rust) is trimmed to its path', patch: wrap('*** Add File: .claude/settings.json\u2028', '+{}'), paths: ['.claude/settings.json'] },
    { name: 'a header ending in \\r\\r\\n keeps no \\r in its path', patch: ['*** Begin Patch', '*** Add File: .git/config', '+x', '*** End Patch'].join('\r\r\n'), paths: ['.git/config'] },
    { name: 'two spaces after the colon: the path starts with a space', patch: wrap('*** Add File:  src/a/evil.ts', '+x'), paths: [' src/a/evil.ts'] },
    // Codex 0.169.0 trims trailing White_Space off a move path (space, NBSP and U+3000 tried); parser.rs keeps
    // it. Both readings are named, the untrimmed one first.
    { name: 'a move path with trailing spaces is read as written and trimmed', patch: wrap('*** Update File: a.ts', '*** Move to: b.ts  ', '@@', '-x', '+y'), paths: ['a.ts', 'b.ts  ', 'b.ts'] },
    { name: 'a move path ending in NBSP or U+3000 is read as written and trimmed', patch: wrap('*** Update File: a.ts', '*** Move to: .codex/config.toml\u00a0\u3000', '@@', '-x', '+y'), paths: ['a.ts', '.codex/config.toml\u00a0\u3000', '.codex/config.toml'] },
    { name: 'a move path keeps its leading spaces in both versions', patch: wrap('*** Update File: a.ts', '*** Move to:  b.ts', '@@', '-x', '+y'), paths: ['a.ts', ' b.ts'] },
    { name: 'an indented move line is not a move', patch: wrap('*** Update File: a.ts', ' *** Move to: b.ts', '+y'), paths: ['a.ts'] },
    { name: 'inside an update chunk an indented header is a context line', patch: wrap('*** Update File: a.ts', '@@', ' *** Add File: .git/config', '+y'), paths: ['a.ts'] },
    { name: 'blank lines between chunks are skipped', patch: wrap('*** Update File: a.ts', '@@', '-x', '+y', '', '@@ ctx', '-z', '+w', '*** Delete File: d.ts'), paths: ['a.ts', 'd.ts'] },
    { name: 'the heredoc wrapper of the lenient mode', patch: ["<<'EOF'", '*** Begin Patch', '*** Add File: h.ts', '+x', '*** End Patch', 'EOF'].join('\n'), paths: ['h.ts'] },
    { name: 'surrounding blank space and markers with spaces around them', patch: `\n\n  *** Begin Patch  \n*** Add File: s.ts\n+x\n  *** End Patch \n\n`, paths: ['s.ts'] },
    { name: 'an absolute path', patch: wrap('*** Delete File: /etc/hosts'), paths: ['/etc/hosts'] },
    { name: 'a patch without hunks', patch: wrap(), paths: [] },
  ];
  for (const { name, patch, paths } of cases) {
    it(name, () => assert.deepEqual(patchPaths({ hunks: parseCodexPatch(patch) }), paths));
  }

  const refused: Array<{ name: string; patch: string; reason: string }> = [
    { name: 'no begin marker', patch: '*** Add File: a\n+x\n*** End Patch', reason: 'no-begin' },
    { name: 'no end marker', patch: '*** Begin Patch\n*** Add File: a\n+x', reason: 'no-end' },
    { name: 'an unknown header', patch: wrap('*** Frobnicate File: a'), reason: 'bad-hunk' },
    { name: 'an empty path (the trailing space is trimmed off the marker)', patch: wrap('*** Add File: ', '+x'), reason: 'bad-hunk' },
    { name: 'a header glued to its marker', patch: wrap('*** Add File:a.ts', '+x'), reason: 'bad-hunk' },
    { name: 'a line after a delete that is not a header', patch: wrap('*** Delete File: a.ts', '+x'), reason: 'bad-hunk' },
    { name: 'an empty update', patch: wrap('*** Update File: a.ts'), reason: 'empty-update' },
    { name: 'a second chunk without its @@', patch: wrap('*** Update File: a.ts', '@@', '-x', '+y', 'junk'), reason: 'bad-hunk' },
    // Codex 0.169.0 drops every TAB from a path: `src/a/.<TAB>./../.<TAB>./.g<TAB>it/hooks/pre-commit` is
    // `.git/hooks/pre-commit` to it; parser.rs keeps the TAB. No version's reading of a control character is
    // relied on: every one is refused, in each kind of path.
    { name: 'a TAB in an add path (0.169.0 writes .git/hooks/pre-commit)', patch: wrap('*** Add File: src/a/.\t./../.\t./.g\tit/hooks/pre-commit', '+x'), reason: 'bad-hunk' },
    { name: 'a TAB in a delete path', patch: wrap('*** Delete File: .co\tdex/hooks.json'), reason: 'bad-hunk' },
    { name: 'a TAB in an update path', patch: wrap('*** Update File: src/a/.\t./b/y.ts', '@@', '-x', '+y'), reason: 'bad-hunk' },
    { name: 'a TAB in a move path', patch: wrap('*** Update File: a.ts', '*** Move to: .g\tit/config', '@@', '-x', '+y'), reason: 'bad-hunk' },
    { name: 'a \\r left at the end of a move path by \\r\\r\\n', patch: wrap('*** Update File: a.ts', '*** Move to: b.ts\r\r', '@@', '-x', '+y'), reason: 'bad-hunk' },
    { name: 'a vertical tab inside a path', patch: wrap('*** Add File: a\u000bb', '+x'), reason: 'bad-hunk' },
    // parser.rs would move to a file named "   "; Codex 0.169.0 reads the line as a bad chunk line.
    { name: 'a move path of spaces only', patch: wrap('*** Update File: a.ts', '*** Move to:    ', '@@', '-x', '+y'), reason: 'bad-hunk' },
  ];
  for (const character of ['\u0001', '\u001b', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029']) {
    refused.push({ name: `U+${character.charCodeAt(0).toString(16).padStart(4, '0')} inside a path`, patch: wrap(`*** Add File: .g${character}it/config`, '+x'), reason: 'bad-hunk' });
  }
  for (const { name, patch, reason } of refused) {
    it(`refuses ${name}`, () => {
      assert.throws(() => parseCodexPatch(patch), (error: unknown) => error instanceof CodexPatchError && error.reason === reason);
    });
  }
});

describe('codexPatch: invocations', () => {
  const body = wrap('*** Add File: x.ts', '+x');
  it('[apply_patch, body] and [applypatch, body]', () => {
    for (const command of ['apply_patch', 'applypatch']) assert.deepEqual(patchPaths(parseCodexInvocation([command, body]) ?? { hunks: [] }), ['x.ts']);
  });

  const scripts: Array<{ name: string; script: string; workdir?: string }> = [
    { name: 'a bare heredoc', script: `apply_patch <<'EOF'\n${body}\nEOF\n` },
    { name: 'an unquoted delimiter', script: `apply_patch <<PATCH\n${body}\nPATCH` },
    { name: 'cd into a directory first', script: `cd src/a && apply_patch <<'EOF'\n${body}\nEOF`, workdir: 'src/a' },
    { name: 'cd into a single-quoted directory', script: `cd 'my dir' && apply_patch <<"EOF"\n${body}\nEOF`, workdir: 'my dir' },
    { name: 'cd into an absolute directory', script: `cd /tmp/elsewhere && applypatch <<EOF\n${body}\nEOF`, workdir: '/tmp/elsewhere' },
    // tree-sitter-bash reads these as words (a number is `-?(0x)?[0-9]+` whole), so Codex intercepts them.
    { name: 'cd into a directory that starts with digits', script: `cd 2024-notes && apply_patch <<'EOF'\n${body}\nEOF`, workdir: '2024-notes' },
    { name: 'cd into a single-quoted number', script: `cd '1' && apply_patch <<'EOF'\n${body}\nEOF`, workdir: '1' },
    { name: "cd into '' (Codex joins the empty directory, staying where it is)", script: `cd '' && apply_patch <<'EOF'\n${body}\nEOF`, workdir: '' },
  ];
  for (const { name, script, workdir } of scripts) {
    it(`reads ${name}, as argv ([bash, -lc, script]) and as a shell command string`, () => {
      for (const parsed of [parseCodexInvocation(['bash', '-lc', script]), parseCodexInvocation(['/bin/zsh', '-c', script]), parseCodexScript(script)]) {
        assert.deepEqual(patchPaths(parsed ?? { hunks: [] }), ['x.ts']);
        assert.equal(parsed?.workdir, workdir);
      }
    });
  }

  const uncertain: Array<[string, string]> = [
    ['a command before', `echo hi; apply_patch <<'EOF'\n${body}\nEOF`],
    ['a command after', `apply_patch <<'EOF'\n${body}\nEOF\necho done`],
    ['|| instead of &&', `cd src || apply_patch <<'EOF'\n${body}\nEOF`],
    ['cd with a variable', `cd $HOME && apply_patch <<'EOF'\n${body}\nEOF`],
    ['cd with a tilde', `cd ~/work && apply_patch <<'EOF'\n${body}\nEOF`],
    ['cd with two arguments', `cd -P src && apply_patch <<'EOF'\n${body}\nEOF`],
    ['a heredoc that never ends', `apply_patch <<'EOF'\n${body}\n`],
    ['<<- (tab-stripping)', `apply_patch <<-EOF\n${body}\nEOF`],
    ['an argument besides the heredoc', `apply_patch extra <<'EOF'\n${body}\nEOF`],
    // Codex's query (invocation.rs, tree-sitter-bash 0.25) does not match these, so Codex hands the script to
    // bash, which expands an unquoted heredoc the gate would read literally.
    ['cd into a bare number (tree-sitter reads `1` as a number, not a word)', `cd 1 && apply_patch <<EOF\n${body}\nEOF`],
    ['cd into a bare hexadecimal number', `cd 0x10 && apply_patch <<EOF\n${body}\nEOF`],
    ['cd into a bare negative number', `cd -1 && apply_patch <<EOF\n${body}\nEOF`],
    ['cd into a bare number glued to &&', `cd 22&& apply_patch <<EOF\n${body}\nEOF`],
    ['cd into == (an operator to tree-sitter)', `cd == && apply_patch <<EOF\n${body}\nEOF`],
    ['cd into "" (a string without content)', `cd "" && apply_patch <<EOF\n${body}\nEOF`],
    ['cd into a quoted directory with a TAB', `cd '.\t.' && apply_patch <<'EOF'\n${body}\nEOF`],
    ['cd into a quoted directory with a C1 control', `cd "a\u0085b" && apply_patch <<'EOF'\n${body}\nEOF`],
    ['cd into a bare directory with a C1 control', `cd a\u0085b && apply_patch <<'EOF'\n${body}\nEOF`],
    // tree-sitter-bash skips white space at the start of a body line and ends the heredoc at a line that then
    // starts with the delimiter: Codex's query no longer matches (or reads a shorter body), so bash runs the
    // script. Bash ends the heredoc only at the exact delimiter, which is where the gate reads to.
    ['a body line that is the delimiter after a space', `apply_patch <<EOF\n*** Begin Patch\n*** Update File: a.ts\n@@\n EOF\n*** End Patch\nEOF`],
    ['a body line that is the delimiter after a TAB, quoted delimiter', `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.ts\n+x\n\tEOF\n*** End Patch\nEOF`],
    ['a body line that is the delimiter and a trailing space', `apply_patch <<EOF\n*** Begin Patch\n*** Add File: a.ts\n+x\nEOF \n*** End Patch\nEOF`],
    ['a body line that is the delimiter and a CR', `apply_patch <<EOF\n*** Begin Patch\n*** Add File: a.ts\n+x\nEOF\r\n*** End Patch\nEOF`],
    ['a body line that starts with the delimiter', `apply_patch <<EOF\n*** Begin Patch\n*** Update File: a.ts\n@@\n EOFX\n*** End Patch\nEOF`],
    ['a body line that is the delimiter after U+3000', `apply_patch <<EOF\n*** Begin Patch\n*** Add File: a.ts\n+x\n\u3000EOF\n*** End Patch\nEOF`],
    ['a body line that is the delimiter after NBSP (iswspace differs by C library)', `apply_patch <<EOF\n*** Begin Patch\n*** Add File: a.ts\n+x\n\u00a0EOF\n*** End Patch\nEOF`],
    ['the cd form with a body line that is the delimiter after a space', `cd /r && apply_patch <<EOF\n*** Begin Patch\n*** Update File: a.ts\n@@\n EOF\n*** End Patch\nEOF`],
    ['the reviewer\'s script: a backtick path and a  EOF context line', "apply_patch <<EOF\n*** Begin Patch\n*** Add File: /r/src/a/`echo ../../README.md`\n+pwned\n*** Update File: /r/src/a/x.ts\n@@\n EOF\n*** End Patch\nEOF\n"],
  ];
  for (const [name, script] of uncertain) {
    it(`refuses a script it cannot read with certainty: ${name}`, () => {
      assert.throws(() => parseCodexScript(script), CodexPatchError);
      assert.throws(() => parseCodexInvocation(['bash', '-lc', script]), CodexPatchError);
    });
  }

  it('a body line that carries the delimiter after other text is content, read as Codex reads it', () => {
    for (const line of ['+EOF', '+a EOF', ' xEOF', '+x EOF ', '+\\EOF', '+$EOF']) {
      const script = `apply_patch <<EOF\n*** Begin Patch\n*** Update File: a.ts\n@@\n${line}\n*** End Patch\nEOF`;
      assert.deepEqual(patchPaths(parseCodexScript(script) ?? { hunks: [] }), ['a.ts'], line);
    }
  });

  it('a script that does not invoke apply_patch with a heredoc is not a patch', () => {
    assert.equal(parseCodexScript('grep -r apply_patch src'), undefined);
    assert.equal(parseCodexScript('ls -la'), undefined);
    assert.equal(parseCodexInvocation(['ls', '-la']), undefined);
  });

  it('an argv that carries a patch in a form Codex may still apply is refused', () => {
    assert.throws(() => parseCodexInvocation(['sudo', 'apply_patch', body]), CodexPatchError);
    assert.throws(() => parseCodexInvocation([body]), CodexPatchError);
  });
});
