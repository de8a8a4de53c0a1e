import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { formatHookReply, HookPayloadError, hookReply, mcpToolOf, parseHookPayload, universalDeny } from '../../../src/planner/enforce/hookPayloads';
import type { HookProtocol } from '../../../src/planner/enforce/hookPayloads';
import { hookPayload } from '../../support/hookFixtures';

describe('hook payloads', () => {
  const fixtures: Array<{ fixture: string; protocol: HookProtocol; tool: string; targets: string[]; agentId?: string }> = [
    { fixture: 'claude-write', protocol: 'claude', tool: 'Write', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-edit', protocol: 'claude', tool: 'Edit', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-multiedit', protocol: 'claude', tool: 'MultiEdit', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-notebookedit', protocol: 'claude', tool: 'NotebookEdit', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-subagent-write', protocol: 'claude', tool: 'Write', targets: ['/r/src/a.ts'], agentId: 'a1b2c3d4' },
    { fixture: 'cursor-pretooluse', protocol: 'cursor', tool: 'Write', targets: ['/r/src/a.ts'] },
    { fixture: 'gemini-beforetool', protocol: 'gemini', tool: 'write_file', targets: ['/r/src/a.ts'] },
    { fixture: 'gemini-replace', protocol: 'gemini', tool: 'replace', targets: ['/r/src/a.ts'] },
    { fixture: 'cursor-edit-file', protocol: 'cursor', tool: 'edit_file', targets: ['/r/src/a.ts'] },
    { fixture: 'claude-mcp-write', protocol: 'claude', tool: 'mcp__filesystem__write_file', targets: ['/r/src/a.ts'] },
    { fixture: 'gemini-mcp-edit', protocol: 'gemini', tool: 'mcp_filesystem_edit_file', targets: ['/r/src/a.ts'] },
  ];
  for (const { fixture, protocol, tool, targets, agentId } of fixtures) {
    it(`reads ${fixture}: ${protocol} ${tool}`, () => {
      const request = parseHookPayload(hookPayload(fixture, { cwd: '/r', target: '/r/src/a.ts' }));
      assert.equal(request.protocol, protocol);
      assert.equal(request.toolName, tool);
      assert.equal(request.writes, true);
      assert.deepEqual(request.targets, targets);
      assert.equal(request.cwd, '/r');
      assert.equal(request.agentId, agentId);
      assert.ok(request.sessionIds.length > 0);
    });
  }

  it('a tool that writes nothing is not the gate\'s business', () => {
    const request = parseHookPayload(hookPayload('claude-bash', { cwd: '/r' }));
    assert.equal(request.writes, false);
    assert.deepEqual(request.targets, []);
  });

  const codex = (command: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ hook_event_name: 'PreToolUse', turn_id: '1', session_id: 's', cwd: '/r', tool_name: 'apply_patch', tool_input: { command }, ...extra });
  const patches: Array<{ name: string; patch: string; targets: string[] }> = [
    { name: 'add', patch: '*** Begin Patch\n*** Add File: a/new.ts\n+x\n*** End Patch', targets: ['a/new.ts'] },
    { name: 'update, delete', patch: '*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** Delete File: b.ts\n*** End Patch\n', targets: ['a.ts', 'b.ts'] },
    { name: 'move (both sides)', patch: '*** Begin Patch\n*** Update File: old/a.ts\n*** Move to: new/a.ts\n@@\n-x\n+y\n*** End Patch', targets: ['old/a.ts', 'new/a.ts'] },
    { name: 'CRLF line ends', patch: '*** Begin Patch\r\n*** Add File: c.ts\r\n+x\r\n*** End Patch\r\n', targets: ['c.ts'] },
    { name: 'a header after an add hunk is a header, indented or not', patch: '*** Begin Patch\n*** Add File: d.ts\n  *** Update File: e.ts\n x\n*** End Patch', targets: ['d.ts', 'e.ts'] },
  ];
  for (const { name, patch, targets } of patches) {
    it(`apply_patch: ${name}`, () => {
      const request = parseHookPayload(codex(patch));
      assert.equal(request.protocol, 'codex');
      assert.deepEqual(request.targets, targets);
      // The `~` reading differs by version (0.169.0 writes `~/x` as `<cwd>/~/x`): both are judged.
      assert.deepEqual(request.readings, [{ dotDot: 'lexical', expandTilde: true }, { dotDot: 'lexical', expandTilde: false }], 'Codex folds .. and may or may not expand ~');
    });
  }

  it('apply_patch: a body naming no file, or one the gate cannot read as Codex does, is refused, so the gate denies', () => {
    for (const patch of ['*** Begin Patch\n*** End Patch', '*** Begin Patch\n*** Add File:   \n*** End Patch', '*** Add File: a\n+x', '*** Begin Patch\n*** Update File: a.ts\n*** End Patch']) {
      assert.throws(() => parseHookPayload(codex(patch)), (error: unknown) => error instanceof HookPayloadError && error.reason === 'bad-patch' && error.protocol === 'codex', patch);
    }
  });

  it('apply_patch: a `cd dir &&` argv puts the paths under that directory', () => {
    const script = "cd src/a && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.ts\n+x\n*** End Patch\nEOF";
    assert.deepEqual(parseHookPayload(codex(['bash', '-lc', script])).targets, ['src/a/x.ts']);
    assert.deepEqual(parseHookPayload(codex(['bash', '-lc', script.replace('x.ts', '/abs/x.ts')])).targets, ['/abs/x.ts'], 'an absolute path ignores the cd');
    assert.deepEqual(parseHookPayload(codex(['bash', '-lc', script.replace('x.ts', '~/x.ts')])).targets, ['~/x.ts', 'src/a/~/x.ts'], 'a ~ path ignores the cd where ~ is expanded; Codex 0.169.0 writes it under the cd');
    // Codex joins the empty directory of `cd ''` onto cwd, which leaves cwd: the path stays relative, never `/x.ts`.
    assert.deepEqual(parseHookPayload(codex(['bash', '-lc', script.replace('cd src/a', "cd ''")])).targets, ['x.ts']);
  });

  it('Codex shell calls (fixture): a heredoc apply_patch under an absolute `cd` is a write of the paths under that directory', () => {
    const script = "cd /r/src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.ts\n+x\n*** End Patch\nEOF";
    const request = parseHookPayload(hookPayload('codex-bash-apply-patch', { cwd: '/r', patch: script }));
    assert.equal(request.protocol, 'codex');
    assert.deepEqual(request.targets, ['/r/src/x.ts']);
  });

  it('Codex shell calls: an apply_patch Codex would intercept is a write; another command is not; one it cannot read is refused', () => {
    const shell = (command: string) => JSON.stringify({ hook_event_name: 'PreToolUse', turn_id: '1', session_id: 's', cwd: '/r', tool_name: 'Bash', tool_input: { command } });
    const write = parseHookPayload(shell("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: /r/.git/config\n*** Update File: /r/x\n@@\n-a\n+b\n*** End Patch\nEOF"));
    assert.equal(write.writes, true);
    assert.deepEqual(write.targets, ['/r/.git/config', '/r/x']);
    assert.equal(parseHookPayload(shell('npm test')).writes, false);
    assert.throws(() => parseHookPayload(shell("echo hi; apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\nEOF")), HookPayloadError);
  });

  it('Codex shell calls: a relative path lands under the call\'s workdir, which the payload does not carry, so it is refused; a named workdir is read as Codex reads it', () => {
    const shell = (command: string, workdir?: unknown) =>
      JSON.stringify({ hook_event_name: 'PreToolUse', turn_id: '1', session_id: 's', cwd: '/r', tool_name: 'Bash', tool_input: { command, ...(workdir !== undefined ? { workdir } : {}) } });
    const add = (prefix: string) => `${prefix}apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.ts\n+x\n*** Add File: /abs/y.ts\n+y\n*** End Patch\nEOF`;
    // `cd ''` moves nowhere, so its relative paths are as uncertain as a bare script's (they never become `/x.ts`).
    for (const script of [add(''), add('cd src && '), add("cd '' && ")]) {
      assert.throws(() => parseHookPayload(shell(script)), (error: unknown) => error instanceof HookPayloadError && error.reason === 'bad-patch' && /workdir/.test(error.message), script);
    }
    assert.throws(() => parseHookPayload(shell(add(''), 7)), (error: unknown) => error instanceof HookPayloadError && error.reason === 'bad-patch');
    assert.deepEqual(parseHookPayload(shell(add(''), '../b')).targets, ['../b/x.ts', '/abs/y.ts']);
    assert.deepEqual(parseHookPayload(shell(add('cd src && '), 'lib')).targets, ['lib/src/x.ts', '/abs/y.ts']);
    assert.deepEqual(parseHookPayload(shell(add(''), '')).targets, ['x.ts', '/abs/y.ts'], 'Codex reads an empty workdir as none');
    // A `~` path: versions that expand it ignore the directory, Codex 0.169.0 writes `<dir>/~/…`; both are
    // targets, and without a workdir in the payload (nor an absolute cd) the second has no certain destination.
    const tilde = (prefix: string) => `${prefix}apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ~/x.ts\n+x\n*** End Patch\nEOF`;
    assert.throws(() => parseHookPayload(shell(tilde(''))), (error: unknown) => error instanceof HookPayloadError && /workdir/.test(error.message));
    assert.deepEqual(parseHookPayload(shell(tilde('cd /r/src && '))).targets, ['~/x.ts', '/r/src/~/x.ts']);
    assert.deepEqual(parseHookPayload(shell(tilde('cd src && '), '/r')).targets, ['~/x.ts', '/r/~/x.ts', '/r/src/~/x.ts']);
    // Codex 0.169.0 drops TABs from patch paths; a workdir is joined onto each of them, so one with a control character is refused.
    for (const workdir of ['.\t./b', 'a\u0085b']) {
      assert.throws(() => parseHookPayload(shell(add(''), workdir)), (error: unknown) => error instanceof HookPayloadError && error.reason === 'bad-patch' && /control character/.test(error.message), workdir);
    }
  });

  it('apply_patch: the patch may come as an argv array', () => {
    const request = parseHookPayload(
      JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'apply_patch', cwd: '/r', tool_input: { command: ['apply_patch', '*** Begin Patch\n*** Add File: z.ts\n*** End Patch'] } }),
    );
    assert.equal(request.protocol, 'codex');
    assert.deepEqual(request.targets, ['z.ts']);
  });

  const refused: Array<[string, string]> = [
    ['', 'not-json'],
    ['null', 'not-an-object'],
    ['{"tool_input":{"file_path":"a"}}', 'no-tool-name'],
    ['{"tool_name":"Write","tool_input":{"file_path":"a"}}', 'unknown-protocol'],
    ['{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{}}', 'no-target'],
    ['{"tool_name":"apply_patch","tool_input":{}}', 'bad-patch'],
  ];
  for (const [stdin, reason] of refused) {
    it(`refuses ${JSON.stringify(stdin)} as ${reason}`, () => {
      assert.throws(() => parseHookPayload(stdin), (error: unknown) => error instanceof HookPayloadError && error.reason === reason);
    });
  }

  it('recognises each agent CLI from its payload\'s shape alone', () => {
    const shapes: Array<[Record<string, unknown>, string | undefined]> = [
      [{ hook_event_name: 'PreToolUse' }, 'claude'],
      [{ hook_event_name: 'PreToolUse', turn_id: '3' }, 'codex'],
      [{ hook_event_name: 'preToolUse' }, 'cursor'],
      [{ conversation_id: 'c', workspace_roots: ['/r'] }, 'cursor'],
      [{ hook_event_name: 'BeforeTool' }, 'gemini'],
    ];
    for (const [shape, protocol] of shapes) {
      const request = parseHookPayload(JSON.stringify({ ...shape, tool_name: 'Read', tool_input: {} }));
      assert.equal(request.protocol, protocol, JSON.stringify(shape));
    }
  });

  const mcp: Array<{ tool: string; input: Record<string, unknown>; targets: unknown[] | undefined }> = [
    { tool: 'mcp__filesystem__write_file', input: { path: '/r/x.ts', content: '' }, targets: ['/r/x.ts'] },
    { tool: 'mcp__filesystem__edit_file', input: { path: 'x.ts', edits: [] }, targets: ['x.ts'] },
    { tool: 'mcp__filesystem__move_file', input: { source: 'a', destination: 'b' }, targets: ['b', 'a'] },
    { tool: 'mcp__filesystem__create_directory', input: { path: 'd' }, targets: ['d'] },
    { tool: 'mcp__filesystem__read_file', input: { path: '/etc/passwd' }, targets: undefined },
    { tool: 'mcp__github__create_issue', input: { title: 't' }, targets: undefined },
    { tool: 'MCP:fs:write_file', input: { path: 'y' }, targets: ['y'] },
    { tool: 'mcp__notes__writeFile', input: { path: 'z' }, targets: ['z'] },
    { tool: 'mcp__notes__fileCreate', input: { path: 'z' }, targets: ['z'] },
    { tool: 'mcp__notes__HTMLUpdate', input: { path: 'z' }, targets: ['z'] },
    { tool: 'mcp__notes__readFile', input: { path: 'z' }, targets: undefined },
    { tool: 'mcp__notes__rewritten_notes', input: { path: 'z' }, targets: undefined },
    // Keys whose words name a file, however the server spells them (Serena, the JetBrains server).
    { tool: 'mcp__serena__create_text_file', input: { relative_path: 'src/b/y.ts', content: 'x' }, targets: ['src/b/y.ts'] },
    { tool: 'mcp__serena__replace_symbol_body', input: { name_path: 'Cart/total', relative_path: 'src/a/cart.ts', body: '' }, targets: ['src/a/cart.ts'] },
    { tool: 'mcp__jetbrains__create_new_file', input: { pathInProject: 'src/b/y.ts', text: '' }, targets: ['src/b/y.ts'] },
    { tool: 'mcp__x__copy', input: { src: 'a', dst: 'b', overwrite: true }, targets: ['a', 'b'] },
    // At any depth, and in lists of objects.
    { tool: 'mcp__x__write_files', input: { files: [{ path: 'a', content: 'c' }, { path: 'b', content: 'd' }] }, targets: ['a', 'b'] },
    { tool: 'mcp__x__apply_edits', input: { edits: [{ filePath: 'a', oldText: 'x', newText: 'y' }], options: { target: { dir: 'd' } } }, targets: ['a', 'd'] },
    // A write naming nothing a file could be is still no file write; a number under a primary key is passed on (and refused).
    { tool: 'mcp__memory__create_entities', input: { entities: [{ name: 'n', observations: ['o'] }] }, targets: undefined },
    { tool: 'mcp__x__write_file', input: { path: 3 }, targets: [3] },
    // A patch tool naming no path: the files its patch names.
    { tool: 'mcp__jetbrains__apply_patch', input: { input: '*** Begin Patch\n*** Add File: docs/x.md\n+x\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-1\n+2\n*** End Patch' }, targets: ['docs/x.md', 'a.ts', 'b.ts'] },
  ];
  for (const { tool, input, targets } of mcp) {
    it(`MCP: ${tool} ${targets === undefined ? 'is not a write' : 'is gated on the path it names'}`, () => {
      const request = parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: tool, tool_input: input }));
      assert.equal(request.writes, targets !== undefined);
      if (targets !== undefined) assert.deepEqual([...request.targets].sort(), [...targets].sort());
    });
  }

  // Gemini CLI 0.34 and later: `mcp_<server>_<tool>`, one underscore; where the server ends is not known, so
  // every word after `mcp_` is read as the tool's. The other CLIs' `mcp_x` is a tool of that name, not MCP.
  const geminiMcp: Array<{ tool: string; input: Record<string, unknown>; targets: unknown[] | undefined }> = [
    { tool: 'mcp_filesystem_write_file', input: { path: '/r/x.ts', content: '' }, targets: ['/r/x.ts'] },
    { tool: 'mcp_filesystem_edit_file', input: { path: 'x.ts', edits: [] }, targets: ['x.ts'] },
    { tool: 'mcp_filesystem_move_file', input: { source: 'a', destination: 'b' }, targets: ['a', 'b'] },
    { tool: 'mcp_filesystem_create_directory', input: { path: 'd' }, targets: ['d'] },
    { tool: 'mcp_filesystem_read_file', input: { path: '/etc/passwd' }, targets: undefined },
    { tool: 'mcp_my_notes_writeFile', input: { path: 'z' }, targets: ['z'] },
    // A verb in the server's name (server `file-edit`, tool `read_file`) cannot be told from the tool's: gated.
    { tool: 'mcp_file-edit_read_file', input: { path: 'z' }, targets: ['z'] },
    { tool: 'mcp__filesystem__write_file', input: { path: 'y' }, targets: ['y'] },
    // A name longer than 63 characters keeps its first and last 30 around `...`, which may cut out the verb
    // (here `overwrite`): such a tool is gated on the paths it names, whatever verbs are left.
    { tool: 'mcp_acme_corporate_knowledge_b..._contents_in_shared_team_drive', input: { path: 'notes/x.md', content: '' }, targets: ['notes/x.md'] },
    { tool: 'mcp_acme_corporate_knowledge_b..._contents_in_shared_team_drive', input: { query: 'notes' }, targets: undefined },
    { tool: 'mcp_knowledge_base_server_look_up_and_read_documents_by_a_title', input: { path: 'notes/x.md' }, targets: undefined },
  ];
  for (const { tool, input, targets } of geminiMcp) {
    it(`MCP from Gemini CLI: ${tool} ${targets === undefined ? 'is not a write' : 'is gated on the path it names'}`, () => {
      const request = parseHookPayload(JSON.stringify({ hook_event_name: 'BeforeTool', cwd: '/r', tool_name: tool, tool_input: input }));
      assert.equal(request.writes, targets !== undefined);
      if (targets !== undefined) assert.deepEqual([...request.targets].sort(), [...targets].sort());
    });
  }

  it('MCP from Codex (and Claude Code\'s spelling): a name Codex shortened (its first 24 characters and a SHA-1; since April 2026, its tool part cut and 12 hex digits of a SHA-1) is gated on the paths it names', () => {
    // Codex's qualify_tools: a qualified name longer than 64 keeps 24 characters and appends the SHA-1 of the whole in hex.
    const long = 'mcp__acme_knowledge_base__overwrite_document_contents_in_shared_drive';
    const shortened = long.slice(0, 24) + createHash('sha1').update(long).digest('hex');
    assert.equal(shortened.length, 64);
    assert.doesNotMatch(shortened, /write/);
    const call = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: '/r', tool_name: tool, tool_input: input, ...extra }));
    for (const extra of [{ turn_id: '1' }, {}]) {
      const request = call(shortened, { path: 'notes/x.md', content: '' }, extra);
      assert.equal(request.writes, true);
      assert.deepEqual(request.targets, ['notes/x.md']);
      assert.equal(call(shortened, { query: 'notes' }, extra).writes, false, 'no path key: nothing to gate');
    }
    // Sixty-four characters that do not end in 40 hex digits, naming a reader: not a write.
    const reader = 'mcp__knowledge_base__look_up_and_read_documents_by_title_or_tag';
    assert.equal(call(`${reader}s`, { path: 'notes/x.md' }).writes, false);
    // Codex since April 2026: the tool's part cut, then `_` and 12 hex digits; with a server name long enough,
    // the tool's part is nothing but that suffix.
    for (const tool of ['mcp__analytics__customer_records_for_region_emea_de_508577d31db3', 'mcp__my_very_long_server_name_for_internal_docs_a__258ff1617dc1']) {
      assert.deepEqual(call(tool, { path: 'notes/x.md' }).targets, ['notes/x.md'], tool);
      assert.equal(call(tool, { query: 'notes' }).writes, false, tool);
    }
    // Twelve characters that are not hex, or no `_` before them: a name like any other.
    assert.equal(call('mcp__analytics__customer_records_read_0123456789ag', { path: 'notes/x.md' }).writes, false);
    assert.equal(call('mcp__analytics__read_records0123456789ab', { path: 'notes/x.md' }).writes, false);
  });

  // Tools that change files without one of the plain verbs: formatters, generators, downloads, archive tools.
  const moreWriters: Array<{ tool: string; input: Record<string, unknown>; targets: unknown[] | undefined }> = [
    { tool: 'mcp__jetbrains__reformat_file', input: { path: 'README.md' }, targets: ['README.md'] },
    { tool: 'mcp__prettier__format_document', input: { filePath: 'a.ts' }, targets: ['a.ts'] },
    { tool: 'mcp__eslint__fix_file', input: { file: 'a.ts' }, targets: ['a.ts'] },
    { tool: 'mcp__ide__optimizeImports', input: { path: 'a.ts' }, targets: ['a.ts'] },
    { tool: 'mcp__scaffold__generate_component', input: { directory: 'src/b' }, targets: ['src/b'] },
    { tool: 'mcp__web__download_file', input: { url: 'https://x', destination: 'vendor/x.js' }, targets: ['vendor/x.js'] },
    { tool: 'mcp__archive__unzip', input: { source: 'a.zip', target: 'out' }, targets: ['a.zip', 'out'] },
    { tool: 'mcp__shell__rm', input: { path: 'a.ts' }, targets: ['a.ts'] },
    { tool: 'mcp__git__git_init', input: { repo_path: 'sub' }, targets: ['sub'] },
    // Words that only read stay out.
    { tool: 'mcp__git__git_diff', input: { repo_path: '/r', target: 'main' }, targets: undefined },
    { tool: 'mcp__git__git_show', input: { repo_path: '/r', revision: 'HEAD' }, targets: undefined },
    { tool: 'mcp__jetbrains__get_file_problems', input: { filePath: 'a.ts' }, targets: undefined },
    { tool: 'mcp__fetch__fetch', input: { url: 'https://x' }, targets: undefined },
  ];
  for (const { tool, input, targets } of moreWriters) {
    it(`MCP: ${tool} ${targets === undefined ? 'is not a write' : 'is a write of the path it names'}`, () => {
      const request = parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: tool, tool_input: input }));
      assert.equal(request.writes, targets !== undefined);
      assert.equal(request.reachesUnnamed, undefined);
      if (targets !== undefined) assert.deepEqual([...request.targets].sort(), [...targets].sort());
    });
  }

  // Tools that change files beyond the paths they name: renames and refactorings, git operations on the work
  // tree or on git's own state. They are writes of what they name and of files no one can list in advance.
  const unbounded: Array<{ tool: string; input: Record<string, unknown>; targets: unknown[] }> = [
    { tool: 'mcp__jetbrains__rename_refactoring', input: { pathInProject: 'src/a/x.ts', symbolName: 'f', newName: 'g' }, targets: ['src/a/x.ts'] },
    { tool: 'mcp__serena__rename_symbol', input: { name_path: 'Cart/total', relative_path: 'src/a/cart.ts', new_name: 'sum' }, targets: ['src/a/cart.ts'] },
    { tool: 'mcp__lsp__rename', input: { file: 'src/a/x.ts', line: 1, character: 1, newName: 'g' }, targets: ['src/a/x.ts'] },
    { tool: 'mcp__tsmorph__rename_filesystem_entry', input: { oldPath: 'src/a/x.ts', newPath: 'src/a/y.ts' }, targets: ['src/a/x.ts', 'src/a/y.ts'] },
    { tool: 'mcp__tsmorph__move_symbol_to_file', input: { originalFilePath: 'src/a/x.ts', targetFilePath: 'src/a/y.ts', symbolToMove: 'f' }, targets: ['src/a/x.ts', 'src/a/y.ts'] },
    { tool: 'mcp__refactor__refactorCode', input: { filePath: 'src/a/x.ts' }, targets: ['src/a/x.ts'] },
    { tool: 'mcp__git__git_checkout', input: { repo_path: '/r', branch_name: 'other' }, targets: ['/r'] },
    { tool: 'mcp__git__git_reset', input: { repo_path: '/r' }, targets: ['/r'] },
    { tool: 'mcp__git__git_commit', input: { repo_path: '/r', message: 'm' }, targets: ['/r'] },
    { tool: 'mcp__git__git_restore', input: { repo_path: '/r', files: ['src/a/x.ts'] }, targets: ['/r', 'src/a/x.ts'] },
    { tool: 'mcp__git__git_stash', input: { path: '/r' }, targets: ['/r'] },
    { tool: 'mcp__git__git_merge', input: { path: '/r', branch: 'b' }, targets: ['/r'] },
    { tool: 'mcp__git__git_rebase', input: { path: '/r' }, targets: ['/r'] },
    { tool: 'mcp__git__git_pull', input: { path: '/r' }, targets: ['/r'] },
    { tool: 'mcp__git__git_cherry_pick', input: { path: '/r', commit: 'abc' }, targets: ['/r'] },
    { tool: 'mcp__git__git_clean', input: { path: '/r' }, targets: ['/r'] },
    { tool: 'mcp__git__gitSwitch', input: { dir: '/r', branch: 'b' }, targets: ['/r'] },
  ];
  for (const { tool, input, targets } of unbounded) {
    it(`MCP: ${tool} reaches files it does not name, beyond the paths it names`, () => {
      const request = parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: tool, tool_input: input }));
      assert.equal(request.writes, true);
      assert.equal(request.reachesUnnamed, true);
      assert.deepEqual([...request.targets].sort(), [...targets].sort());
    });
  }

  it('MCP: a pull request is no git pull, and a tool that names no path is no file write, whatever its verb', () => {
    const call = (tool: string, input: Record<string, unknown>) => parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: tool, tool_input: input }));
    assert.equal(call('mcp__github__add_pull_request_review_comment_to_pending_review', { owner: 'o', repo: 'r', path: 'src/a/x.ts', body: 'b' }).reachesUnnamed, undefined);
    assert.equal(call('mcp__github__update_pull_request', { owner: 'o', repo: 'r', pullNumber: 1 }).writes, false);
    assert.equal(call('mcp__github__merge_pull_request', { owner: 'o', repo: 'r', pullNumber: 1 }).writes, false);
    assert.equal(call('mcp__jetbrains__find_commit_by_message', { text: 'x' }).writes, false);
  });

  it('MCP: a GitLab merge request is no git merge, and a branch, a project or a language is no file', () => {
    const call = (tool: string, input: Record<string, unknown>) => parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: tool, tool_input: input }));
    for (const [tool, input] of [
      ['mcp__gitlab__get_merge_request', { project_id: 'group/app', source_branch: 'feature-login' }],
      ['mcp__gitlab__list_merge_requests', { project_id: 'group/app', target_branch: 'main' }],
      ['mcp__gitlab__get_merge_request_diffs', { project_id: 'group/app', source_branch: 'feature-login' }],
    ] as const) {
      const request = call(tool, input);
      assert.deepEqual([request.writes, request.reachesUnnamed], [false, undefined], tool);
    }
    const created = call('mcp__gitlab__create_merge_request', { project_id: 'group/app', source_branch: 'feature', target_branch: 'main', target_project_id: 7, title: 't' });
    assert.deepEqual([created.writes, created.targets], [false, []], 'a merge request made on the remote names no file here');
    // An endpoint word with a file word, or alone, still names a file; a merge of branches here still reaches unnamed files.
    assert.deepEqual(call('mcp__fs__copy_file', { source: 'a.txt', target_path: 'b.txt' }).targets, ['a.txt', 'b.txt']);
    assert.deepEqual(call('mcp__fs__move_file', { source_path: 'a.txt', destination: 'b.txt' }).targets, ['a.txt', 'b.txt']);
    assert.equal(call('mcp__git__git_merge', { repo_path: '/r', source_branch: 'feature' }).reachesUnnamed, true);
  });

  it('MCP: only Gemini CLI spells an MCP tool with one underscore; a Claude Code or Codex tool named mcp_x_write_file is no MCP tool', () => {
    assert.equal(mcpToolOf('mcp_fs_write_file', 'gemini'), 'fs_write_file');
    assert.equal(mcpToolOf('mcp__fs__write_file', 'gemini'), '_fs__write_file');
    assert.equal(mcpToolOf('mcp__fs__write_file', 'claude'), 'write_file');
    for (const protocol of ['claude', 'codex', 'cursor'] as const) assert.equal(mcpToolOf('mcp_fs_write_file', protocol), undefined, protocol);
    assert.equal(parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: 'mcp_fs_write_file', tool_input: { path: 'x' } })).writes, false);
  });

  it('MCP: a relative path is also read from the project (relativeToProject), and an input nested past the depth the gate reads is refused', () => {
    const request = parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: 'mcp__serena__create_text_file', tool_input: { relative_path: 'x' } }));
    assert.equal(request.relativeToProject, true);
    assert.equal(parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: 'Write', tool_input: { file_path: 'x' } })).relativeToProject, undefined);
    let deep: unknown = { path: 'x' };
    for (let level = 0; level < 12; level += 1) deep = { inner: deep };
    assert.throws(() => parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: 'mcp__x__write_file', tool_input: deep })), /nested deeper/);
    // A patch tool whose patch is not in apply_patch's format (a unified diff) cannot be read: refused.
    assert.throws(() => parseHookPayload(JSON.stringify({ hook_event_name: 'PreToolUse', cwd: '/r', tool_name: 'mcp__jetbrains__apply_patch', tool_input: { input: '--- a/x\n+++ b/x\n' } })), /cannot be read with certainty/);
  });

  it('a write tool naming its file under several keys is judged on every one (Cursor\'s target_file beside a path)', () => {
    const request = parseHookPayload(JSON.stringify({ hook_event_name: 'preToolUse', conversation_id: 'c', cwd: '/r', tool_name: 'edit_file', tool_input: { target_file: 'src/b/y.ts', path: 'src/a/x.ts' } }));
    assert.deepEqual([...request.targets].sort(), ['src/a/x.ts', 'src/b/y.ts']);
  });

  it('Cursor\'s own file tools are writes', () => {
    for (const tool of ['edit_file', 'write_file', 'delete_file', 'StrReplace', 'Delete']) {
      const request = parseHookPayload(JSON.stringify({ hook_event_name: 'preToolUse', cwd: '/r', tool_name: tool, tool_input: { target_file: 'x.ts' } }));
      assert.equal(request.writes, true, tool);
      assert.deepEqual(request.targets, ['x.ts']);
    }
  });

  it('a deny for an unknown agent CLI is one every supported CLI reads as a block: exit 2, the reason on stderr, every deny field on stdout', () => {
    const reply = universalDeny('no');
    assert.equal(reply.exitCode, 2);
    assert.equal(reply.stderr, 'no\n');
    assert.deepEqual(JSON.parse(reply.stdout), {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
      permission: 'deny',
      user_message: 'no',
      agent_message: 'no',
      decision: 'deny',
      reason: 'no',
    });
    assert.deepEqual(hookReply(undefined, { decision: 'deny', reason: 'no' }), reply);
    assert.deepEqual(hookReply('cursor', { decision: 'deny', reason: 'no' }), { stdout: formatHookReply('cursor', { decision: 'deny', reason: 'no' }), stderr: '', exitCode: 0 });
  });

  it('formats each protocol\'s reply', () => {
    const deny = { decision: 'deny' as const, reason: 'no' };
    assert.deepEqual(JSON.parse(formatHookReply('claude', deny)), {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
    });
    assert.equal(formatHookReply('claude', { decision: 'allow' }), '');
    assert.deepEqual(JSON.parse(formatHookReply('codex', { decision: 'warn', message: 'w' })), { systemMessage: 'w' });
    assert.deepEqual(JSON.parse(formatHookReply('cursor', deny)), { permission: 'deny', user_message: 'no', agent_message: 'no' });
    assert.deepEqual(JSON.parse(formatHookReply('gemini', deny)), { decision: 'deny', reason: 'no' });
  });
});
