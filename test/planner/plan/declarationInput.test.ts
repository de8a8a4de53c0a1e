import assert from 'node:assert/strict';
import { findMissingPaths, validateWaveRecords } from '../../../src/planner/plan/declarationInput';
import { FileIndex } from '../../../src/planner/scope/fileIndex';

describe('validateWaveRecords: every input error', () => {
  const table: Array<[string, unknown, string[], RegExp[], { newFiles?: string[] }?]> = [
    ['not an array', { id: 'a', files: [] }, ['not-array'], [/^the input must be a JSON array of \{"id", "files"\} records$/]],
    ['an empty array', [], ['empty'], [/^the input is an empty array: a wave declares at least one record$/]],
    ['a record that is not an object', ['a'], ['not-record'], [/^record #1 is not an object \{"id", "files"\}$/]],
    ['a record without id', [{ files: ['a'] }], ['missing-id'], [/^record #1 has no "id" \(a non-empty string naming the agent\)$/]],
    ['an empty id', [{ id: '', files: ['a'] }], ['missing-id'], [/^record #1 has no "id"/]],
    ['an id with a slash', [{ id: '../evil', files: ['a'] }], ['bad-id'], [/^record #1: id "\.\.\/evil" must match \^\[A-Za-z0-9\]\[A-Za-z0-9_-\]\*\$ \(letters, digits, "_" and "-"; it becomes a file name\)$/]],
    ['an id starting with a dash', [{ id: '-a', files: ['a'] }], ['bad-id'], [/id "-a" must match/]],
    ['an id with a dot', [{ id: 'a.b', files: ['a'] }], ['bad-id'], [/id "a\.b" must match/]],
    ['a very long id', [{ id: 'a'.repeat(200), files: ['a'] }], ['bad-id'], [/is longer than 128 characters/]],
    ['duplicate ids', [{ id: 'a', files: ['x'] }, { id: 'a', files: ['y'] }], ['duplicate-id'], [/^records #1 and #2 share the id "a": one record per agent$/]],
    ['ids differing in case', [{ id: 'Alice', files: ['x'] }, { id: 'alice', files: ['y'] }], ['duplicate-id'], [/^records #1 and #2 have ids "Alice" and "alice", which differ only in case/]],
    ['a misspelled coordinator', [{ id: 'Coordinator', files: ['x'] }], ['coordinator-spelling'], [/^record #1: id "Coordinator" must be spelled exactly "coordinator"/]],
    ['two coordinators', [{ id: 'coordinator', files: ['x'] }, { id: 'coordinator', files: ['y'] }], ['duplicate-id'], [/share the id "coordinator"/]],
    ['files missing', [{ id: 'a' }], ['bad-files'], [/^record "a": "files" must be an array of path strings$/]],
    ['files a string', [{ id: 'a', files: 'src/' }], ['bad-files'], [/^record "a": "files" must be an array/]],
    ['an entry that is not a string', [{ id: 'a', files: ['x', 3] }], ['bad-entry'], [/^record "a", entry #2: must be a string, got number$/]],
    ['a null entry', [{ id: 'a', files: [null] }], ['bad-entry'], [/entry #1: must be a string, got null/]],
    ['an entry climbing out', [{ id: 'a', files: ['../x'] }], ['bad-entry'], [/^record "a", entry "\.\.\/x": .*climbs out of the repository/]],
    ['an empty entry', [{ id: 'a', files: [''] }], ['bad-entry'], [/^record "a", entry "": .*is empty/]],
    ['an absolute entry outside the root', [{ id: 'a', files: ['/etc/passwd'] }], ['bad-entry'], [/^record "a", entry "\/etc\/passwd": .*absolute path outside the repository/]],
    ['a negation', [{ id: 'a', files: ['!x'] }], ['bad-entry'], [/^record "a", entry "!x": .*starts with "!"/]],
    ['an unnamed record with a bad entry', [{ files: ['../x'] }], ['missing-id', 'bad-entry'], [/record #1 has no "id"/, /^record "<unnamed#0>", entry "\.\.\/x"/]],
    ['an undeclared new file', [{ id: 'a', files: ['src/a.ts'] }], ['undeclared-new-file'], [/^--new-file "src\/b\.ts" is not declared by any record: a new file must be one of the declared paths, spelled exactly$/], { newFiles: ['src/b.ts'] }],
    ['a new file that is a pattern', [{ id: 'a', files: ['src/*.ts'] }], ['undeclared-new-file'], [/^--new-file "src\/\*\.ts" is a pattern: name one file the wave will create$/], { newFiles: ['src/*.ts'] }],
    ['an invalid new file', [{ id: 'a', files: ['src/a.ts'] }], ['bad-new-file'], [/^--new-file "\.\.\/a\.ts": .*climbs out/], { newFiles: ['../a.ts'] }],
    [
      'several problems, all reported',
      [{ id: 'a b', files: ['x'] }, { id: 'ok', files: ['../y', 'fine'] }, { id: 'OK', files: [] }],
      ['bad-id', 'bad-entry', 'duplicate-id'],
      [/id "a b" must match/, /record "ok", entry "\.\.\/y"/, /ids "ok" and "OK"/],
    ],
  ];
  for (const [name, input, reasons, patterns, options] of table) {
    it(`rejects ${name}`, () => {
      const result = validateWaveRecords(input, { repoRoot: '/repo', ...options });
      assert.equal(result.records, undefined);
      assert.deepEqual(result.errors.map((error) => error.reason), reasons);
      patterns.forEach((pattern, index) => assert.match(result.errors[index]?.message ?? '', pattern));
    });
  }

  const controlCases: Array<[string, string, boolean]> = [
    ['the manifest', '.claude/wave-scope.json', true],
    ['the declarations', '.claude/filescopes/', true],
    ['a glob inside the state directory', '.claude/**', true],
    ['the state directory itself', '.claude', true],
    ['a sibling with a longer name', '.claude-notes/x.md', false],
    ['another harness directory', '.codex/notes.md', false],
  ];
  for (const [name, entry, refused] of controlCases) {
    it(`${refused ? 'refuses' : 'accepts'} ${name} as an entry when the state directory is .claude`, () => {
      const result = validateWaveRecords([{ id: 'a', files: [entry] }], { controlDir: '.claude' });
      assert.deepEqual(result.errors.map((error) => error.reason), refused ? ['control-path'] : []);
      if (refused) {
        assert.match(result.errors[0]?.message ?? '', /^record "a", entry ".*": lies inside the state directory "\.claude\/", which holds the wave's own declarations and manifest; no agent may own it$/);
      }
    });
  }

  // Issue 10 item 16: the refusal is decided by the scope algebra over the catalogue of control state
  // (controlState.ts), not by how the entry starts.
  const algebraCases: Array<[string, string, RegExp | undefined]> = [
    ['a brace alternative inside the state directory', '{.claude,src}/x', /^record "a", entry "\{\.claude,src\}\/x": can name "\.claude\/x", inside the state directory "\.claude\/", which holds the wave's own declarations and manifest; no agent may own it$/],
    ['a class spelling of the state directory', '.clau[d]e/x', /^record "a", entry "\.clau\[d\]e\/x": lies inside the state directory "\.claude\/"/],
    ['a star after the state directory\'s name', '.claude*/x', /^record "a", entry "\.claude\*\/x": can name "\.claude\/x", inside the state directory "\.claude\/"/],
    ['git\'s own directory', '.git/', /^record "a", entry "\.git\/": can name "\.git\/[^"]*", which is control state \(git's own files and hooks\); no agent may own it$/],
    ['another harness\'s manifest', '.codex/wave-scope.json', /can name "\.codex\/wave-scope\.json", which is control state \(a wave manifest\)/],
    ['an agent instruction file', 'CLAUDE.md', /can name "CLAUDE\.md", which is control state \(a file that changes what agents run or are told\)/],
    ['a repository-wide glob', '**/*.test.ts', undefined],
    ['a path beside git\'s directory', '.gitignore', undefined],
  ];
  for (const [name, entry, pattern] of algebraCases) {
    it(`${pattern === undefined ? 'accepts' : 'refuses'} ${name} (${entry}) when the state directory is .claude`, () => {
      const result = validateWaveRecords([{ id: 'a', files: [entry] }], { controlDir: '.claude' });
      assert.deepEqual(result.errors.map((error) => error.reason), pattern === undefined ? [] : ['control-path']);
      if (pattern !== undefined) {
        assert.match(result.errors[0]?.message ?? '', pattern);
        assert.equal(typeof result.errors[0]?.controlPath, 'string');
      }
    });
  }

  it('normalises entries, drops duplicates, keeps unknown keys out and the order in', () => {
    const result = validateWaveRecords(
      [
        { id: 'b', files: ['./src//b.ts', 'src/b.ts', 'src\\c.ts', '/repo/docs/x.md'], note: 'ignored' },
        { id: 'coordinator', files: ['README.md'] },
      ],
      { repoRoot: '/repo' },
    );
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.records, [
      { id: 'b', files: ['src/b.ts', 'src/c.ts', 'docs/x.md'] },
      { id: 'coordinator', files: ['README.md'] },
    ]);
  });

  it('promotes a plain entry naming a directory with files to dir/', () => {
    const files = new FileIndex(['src/lib/a.ts', 'src/main.ts']);
    const result = validateWaveRecords([{ id: 'a', files: ['src/lib', 'src/main.ts', 'src/new.ts'] }], { files });
    assert.deepEqual(result.records?.[0]?.files, ['src/lib/', 'src/main.ts', 'src/new.ts']);
  });

  it('accepts a declared new file after normalisation', () => {
    const result = validateWaveRecords([{ id: 'a', files: ['src/new.ts'] }], { newFiles: ['./src//new.ts'] });
    assert.deepEqual(result.newFiles, ['src/new.ts']);
    assert.ok(result.records);
  });
});

describe('findMissingPaths (--warn-missing)', () => {
  const records = [
    { id: 'alice', files: ['src/a.ts', 'src/new.ts', 'src/**/*.ts', 'docs/'] },
    { id: 'bob', files: ['gone.md'] },
  ];
  const existing = new Set(['src/a.ts']);
  it('names absent plain paths and their agents, skipping globs, directories and new files', () => {
    assert.deepEqual(findMissingPaths(records, { newFiles: ['src/new.ts'], exists: (path) => existing.has(path) }), [{ agent: 'bob', path: 'gone.md' }]);
  });
  it('names a new file too when it is not declared as new', () => {
    assert.deepEqual(findMissingPaths(records, { exists: (path) => existing.has(path) }).map((missing) => missing.path), ['src/new.ts', 'gone.md']);
  });
});
