import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeTargetFileSystem } from '../../../src/node/hookFileSystem';
import { CODEX_READING, locateDestination, resolveWriteDestinations, resolveWriteTarget } from '../../../src/planner/enforce/writeTarget';
import type { ResolveWriteTargetOptions } from '../../../src/planner/enforce/writeTarget';

describe('resolveWriteTarget (real files, symlinks on disk)', () => {
  let base: string;
  let root: string;
  let outside: string;

  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-target-')));
    root = join(base, 'repo');
    outside = join(base, 'outside');
    mkdirSync(join(root, 'src/sub'), { recursive: true });
    mkdirSync(join(root, 'docs'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), 'a');
    writeFileSync(join(root, 'docs/readme.md'), 'r');
    symlinkSync(outside, join(root, 'src/link-out'));
    symlinkSync('../docs', join(root, 'src/link-in'));
    symlinkSync('../../outside/new.txt', join(root, 'src/dangling-out'));
    symlinkSync('missing-inside.ts', join(root, 'src/dangling-in'));
    symlinkSync('loop-b', join(root, 'src/loop-a'));
    symlinkSync('loop-a', join(root, 'src/loop-b'));
    symlinkSync(join(root, 'src/a.ts'), join(root, 'src/abs-in'));
    symlinkSync('/proc/self/cwd', join(root, 'src/here'));
    symlinkSync('/dev/stdout', join(root, 'src/out.log'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const options = (extra: Partial<ResolveWriteTargetOptions> = {}): ResolveWriteTargetOptions => ({
    cwd: root,
    writeRoot: root,
    fs: nodeTargetFileSystem,
    ...extra,
  });

  const inside: Array<[string, string]> = [
    ['src/a.ts', 'src/a.ts'],
    ['./src//a.ts', 'src/a.ts'],
    ['src/./sub/../a.ts', 'src/a.ts'],
    ['src/a.ts/.', 'src/a.ts'],
    ['src/', 'src'],
    ['src/new/deeper/file.ts', 'src/new/deeper/file.ts'],
    ['src/missing/../a.ts', 'src/a.ts'],
    ['src/link-in/readme.md', 'docs/readme.md'],
    ['src/link-in/../src/a.ts', 'src/a.ts'],
    ['src/dangling-in', 'src/missing-inside.ts'],
    ['src/abs-in', 'src/a.ts'],
    ['src/cafe\u0301.ts', 'src/caf\u00e9.ts'],
  ];
  for (const [raw, relative] of inside) {
    it(`${JSON.stringify(raw)} lands inside, at ${relative}`, () => {
      const target = resolveWriteTarget(raw, options());
      assert.equal(target.kind, 'inside', JSON.stringify(target));
      assert.equal(target.kind === 'inside' ? target.relative : '', relative);
    });
  }

  it('absolute spellings resolve like relative ones', () => {
    const target = resolveWriteTarget(join(root, 'src/link-in/readme.md'), options({ cwd: undefined }));
    assert.deepEqual(target.kind === 'inside' ? target.relative : target.kind, 'docs/readme.md');
  });

  const outsideCases: Array<[string, () => string]> = [
    ['../x.ts', () => join(base, 'x.ts')],
    ['src/../../x.ts', () => join(base, 'x.ts')],
    ['src/link-out/f.ts', () => join(outside, 'f.ts')],
    // The kernel applies `..` to the link target, not to the spelling: link-out/.. is base, not src.
    ['src/link-out/../a.ts', () => join(base, 'a.ts')],
    ['src/dangling-out', () => join(outside, 'new.txt')],
    ['.', () => root],
  ];
  for (const [raw, expected] of outsideCases) {
    it(`${JSON.stringify(raw)} lands outside the write root`, () => {
      const target = resolveWriteTarget(raw, options());
      assert.equal(target.kind, 'outside', JSON.stringify(target));
      assert.equal(target.kind === 'outside' ? target.absolute : '', expected());
    });
  }

  const invalid: Array<[unknown, string, Partial<ResolveWriteTargetOptions>?]> = [
    ['', 'empty'],
    ['src/a\0.ts', 'nul'],
    [42, 'not-a-string'],
    ['src\\a.ts', 'backslash'],
    [`src/${'d/'.repeat(2100)}x.ts`, 'too-long'],
    ['src/loop-a', 'link-loop'],
    ['src/a.ts', 'relative-without-cwd', { cwd: undefined }],
    // What these name depends on the process that opens them: the agent CLI, not the hook.
    ['/proc/self/cwd/src/a.ts', 'process-view'],
    ['/proc/thread-self/cwd/docs/readme.md', 'process-view'],
    ['/proc/1/root/etc/x', 'process-view'],
    ['/proc', 'process-view'],
    ['/dev/fd/3', 'process-view'],
    ['/dev/stdout', 'process-view'],
    ['src/../../../../../../proc/self/cwd/x.ts', 'process-view'],
    ['src/here/src/a.ts', 'process-view'],
    ['src/out.log', 'process-view'],
    // Claude Code trims these before writing (in versions that pass the hook the untrimmed input).
    [' src/a.ts', 'surrounding-space'],
    ['src/a.ts\t', 'surrounding-space'],
    ['\u00a0/etc/x', 'surrounding-space'],
    ['\ufeffsrc/a.ts', 'surrounding-space'],
  ];
  for (const [raw, problem, extra] of invalid) {
    it(`${JSON.stringify(raw).slice(0, 40)} is refused as ${problem}`, () => {
      const target = resolveWriteTarget(raw, options(extra));
      assert.equal(target.kind, 'invalid');
      assert.equal(target.kind === 'invalid' ? target.problem : '', problem);
    });
  }

  it('reads "\\" as a separator on win32', () => {
    const target = resolveWriteTarget('src\\sub\\..\\a.ts', options({ platform: 'win32' }));
    assert.equal(target.kind === 'inside' ? target.relative : target.kind, 'src/a.ts');
  });

  it('folds case above the write root only where the file system folds it (and the repository ignores case)', () => {
    const shouted = join(root.toUpperCase(), 'SRC/A.TS');
    assert.equal(resolveWriteTarget(shouted, options()).kind, 'outside');
    assert.equal(resolveWriteTarget(shouted, options({ ignoreCase: true })).kind, 'outside', 'Linux: /TMP/… is another directory');
    const folded = resolveWriteTarget(shouted, options({ ignoreCase: true, folding: { case: true, unicode: false } }));
    assert.equal(folded.kind === 'inside' ? folded.relative : folded.kind, 'SRC/A.TS');
  });

  describe('every destination of a target (resolveWriteDestinations)', () => {
    const destinations = (raw: string, extra: Partial<Parameters<typeof resolveWriteDestinations>[1]> = {}) => {
      const result = resolveWriteDestinations(raw, { cwd: root, fs: nodeTargetFileSystem, ...extra });
      assert.equal(result.kind, 'resolved', JSON.stringify(result));
      return result.kind === 'resolved' ? result : { paths: [] as string[], spelled: [] as string[] };
    };

    it('a link at the last component: where the data lands, and the link itself (a rename-writer replaces it)', () => {
      assert.deepEqual([...destinations('src/abs-in').paths].sort(), [join(root, 'src/a.ts'), join(root, 'src/abs-in')].sort());
    });

    it('`..` after a link: the kernel climbs from the target, a lexical reader from the spelling; both are returned', () => {
      const both = destinations('src/link-out/../a.ts').paths;
      assert.ok(both.includes(join(base, 'a.ts')), 'kernel');
      assert.ok(both.includes(join(root, 'src/a.ts')), 'lexical');
      assert.deepEqual(destinations('src/link-out/../a.ts', { readings: CODEX_READING }).paths, [join(root, 'src/a.ts')], 'Codex reads it lexically only');
    });

    it('a missing directory and `..`: folded past it as mkdir -p and the write would', () => {
      const result = destinations('missing/../../x.ts');
      assert.ok(result.paths.includes(join(base, 'x.ts')), JSON.stringify(result));
    });

    it('`~` expands to the home directory for a reader that expands it, and stays a name for one that does not', () => {
      const result = destinations('~/notes.md', { homeDir: outside });
      assert.ok(result.paths.includes(join(outside, 'notes.md')));
      assert.ok(result.paths.includes(join(root, '~/notes.md')));
      assert.deepEqual(resolveWriteDestinations('~/x', { cwd: root, fs: nodeTargetFileSystem, readings: CODEX_READING }), { kind: 'invalid', raw: '~/x', problem: 'no-home' });
    });

    it('the spelling, folded lexically, is kept for the control-state check', () => {
      assert.deepEqual(destinations('src/link-in/../../.claude/settings.json').spelled, [join(root, '.claude/settings.json')]);
    });
  });

  describe('locateDestination: the part above the write root is compared as the file system compares it', () => {
    const kelvin = '/tmp/x/\u212Ar';
    it('Linux: the Kelvin sign and an NFD spelling are other directories', () => {
      assert.equal(locateDestination('r', `${kelvin}/src/a.ts`, '/tmp/x/Kr').kind, 'outside');
      assert.equal(locateDestination('r', '/tmp/cafe\u0301/src/a.ts', '/tmp/caf\u00e9').kind, 'outside');
      assert.equal(locateDestination('r', '/tmp/caf\u00e9/src/a.ts', '/tmp/cafe\u0301').kind, 'outside');
      const same = locateDestination('r', '/tmp/cafe\u0301/src/cafe\u0301.ts', '/tmp/cafe\u0301');
      assert.equal(same.kind === 'inside' ? same.relative : same.kind, 'src/caf\u00e9.ts', 'below the root the path is NFC, as entries are');
    });
    it('macOS: NFC folding applies above the root too', () => {
      const folding = { case: true, unicode: true };
      assert.equal(locateDestination('r', `${kelvin}/src/a.ts`, '/tmp/x/Kr', { folding }).kind, 'inside');
      assert.equal(locateDestination('r', '/tmp/cafe\u0301/src/a.ts', '/tmp/caf\u00e9', { folding }).kind, 'inside');
    });
  });
});
