import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agentScopePath,
  findMissingPaths,
  listDeclaredWaves,
  manifestPath,
  materializeWave,
  readAgentScope,
  readWaveDeclaration,
  validateWaveRecords,
  waveDirPath,
  waveSidecarPath,
  writeWaveDeclaration,
} from '../../../src/planner/plan/declarations';
import type { WriteStep } from '../../../src/planner/plan/declarations';
import { FileIndex } from '../../../src/planner/scope/fileIndex';
import { nodeDeclarationFs } from '../../../src/node/declarationFs';

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

describe('path builders', () => {
  it('lay out the reference system\'s paths', () => {
    assert.equal(manifestPath('/r/.claude'), '/r/.claude/wave-scope.json');
    assert.equal(waveDirPath('/r/.claude', 3), '/r/.claude/filescopes/wave-3');
    assert.equal(agentScopePath('/r/.claude', 3, 'alice'), '/r/.claude/filescopes/wave-3/alice.json');
    assert.equal(waveSidecarPath('/r/.claude', 3), '/r/.claude/filescopes/wave-3.scopes.json');
  });
  const bad: Array<[string, () => unknown, RegExp]> = [
    ['an id with ..', () => agentScopePath('/s', 1, '../x'), /agent id "\.\.\/x" must match/],
    ['an empty id', () => agentScopePath('/s', 1, ''), /agent id "" must match/],
    ['wave 0', () => waveSidecarPath('/s', 0), /wave must be a positive integer, got 0/],
    ['wave 1.5', () => waveDirPath('/s', 1.5), /wave must be a positive integer/],
  ];
  for (const [name, build, pattern] of bad) it(`refuse ${name}`, () => assert.throws(build, pattern));
});

describe('writing and reading both shapes (real directories)', () => {
  let root: string;
  let stateDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-decl-'));
    stateDir = join(root, '.claude');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const materialize = (records: unknown, wave = 1, afterWrite?: (step: WriteStep) => void) =>
    materializeWave({ stateDir, wave, records, repoRoot: root, afterWrite }, nodeDeclarationFs(stateDir));
  const tree = () => {
    const files: string[] = [];
    const walk = (dir: string, prefix: string) => {
      for (const name of readdirSync(dir, { withFileTypes: true })) {
        if (name.isDirectory()) walk(join(dir, name.name), `${prefix}${name.name}/`);
        else files.push(`${prefix}${name.name}`);
      }
    };
    if (existsSync(stateDir)) walk(stateDir, '');
    return files.sort();
  };

  it('writes per-agent files first and the aggregate last, each as its reader expects', () => {
    const steps: WriteStep[] = [];
    const result = materialize([{ id: 'alice', files: ['src/a.ts'] }, { id: 'coordinator', files: ['README.md'] }], 1, (step) => steps.push(step));
    assert.equal(result.ok, true);
    assert.deepEqual(steps.map((step) => step.kind), ['agent-file', 'agent-file', 'aggregate']);
    assert.deepEqual(tree(), ['filescopes/wave-1.scopes.json', 'filescopes/wave-1/alice.json', 'filescopes/wave-1/coordinator.json']);
    assert.deepEqual(JSON.parse(readFileSync(agentScopePath(stateDir, 1, 'alice'), 'utf8')), ['src/a.ts']);
    assert.deepEqual(JSON.parse(readFileSync(waveSidecarPath(stateDir, 1), 'utf8')), [
      { id: 'alice', files: ['src/a.ts'] },
      { id: 'coordinator', files: ['README.md'] },
    ]);
    const read = readWaveDeclaration(stateDir, 1, nodeDeclarationFs(stateDir));
    assert.equal(read.status, 'complete');
    assert.deepEqual(read.agentFiles, ['alice', 'coordinator']);
  });

  it('refuses a wave that is not a positive integer, writing nothing', () => {
    const result = materialize([{ id: 'alice', files: ['a'] }], 0);
    assert.deepEqual(result.ok === false && result.reason === 'invalid-input' && result.errors, [{ reason: 'bad-wave', message: 'wave must be a positive integer, got 0' }]);
    assert.equal(existsSync(stateDir), false);
  });

  it('writes nothing at all for invalid input', () => {
    const result = materialize([{ id: 'alice', files: ['src/a.ts'] }, { id: 'bob', files: ['../x'] }]);
    assert.equal(result.ok, false);
    assert.equal(existsSync(stateDir), false);
  });

  it('converges: re-running the same wave yields exactly the same bytes', () => {
    const input = [{ id: 'alice', files: ['src/a.ts', 'src/b/'] }, { id: 'bob', files: ['docs/**'] }];
    materialize(input);
    const first = tree().map((file) => [file, readFileSync(join(stateDir, file), 'utf8')]);
    const again = materialize(input);
    assert.equal(again.ok, true);
    assert.deepEqual(tree().map((file) => [file, readFileSync(join(stateDir, file), 'utf8')]), first);
  });

  it('removes per-agent files of agents no longer in the wave, before the aggregate', () => {
    materialize([{ id: 'alice', files: ['a'] }, { id: 'bob', files: ['b'] }, { id: 'carol', files: ['c'] }]);
    const steps: WriteStep[] = [];
    const result = materialize([{ id: 'alice', files: ['a2'] }], 1, (step) => steps.push(step));
    assert.equal(result.ok, true);
    assert.deepEqual(steps.map((step) => step.kind), ['invalidate-aggregate', 'agent-file', 'stale-agent-file', 'stale-agent-file', 'aggregate']);
    assert.deepEqual(tree(), ['filescopes/wave-1.scopes.json', 'filescopes/wave-1/alice.json']);
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(stateDir)).status, 'complete');
  });

  it('leaves other waves and foreign files in the wave directory alone', () => {
    materialize([{ id: 'alice', files: ['a'] }], 1);
    materialize([{ id: 'bob', files: ['b'] }], 2);
    writeFileSync(join(waveDirPath(stateDir, 1), 'notes.txt'), 'mine');
    materialize([{ id: 'carol', files: ['c'] }], 1);
    assert.deepEqual(tree(), [
      'filescopes/wave-1.scopes.json',
      'filescopes/wave-1/carol.json',
      'filescopes/wave-1/notes.txt',
      'filescopes/wave-2.scopes.json',
      'filescopes/wave-2/bob.json',
    ]);
    assert.deepEqual(listDeclaredWaves(stateDir, nodeDeclarationFs(stateDir)), [1, 2]);
  });

  it('refuses to write through a symbolic link planted in the state directory', () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(stateDir, 'filescopes'), { recursive: true });
    symlinkSync(outside, join(stateDir, 'filescopes', 'wave-1'));
    const result = materialize([{ id: 'alice', files: ['a'] }]);
    assert.equal(result.ok, false);
    assert.equal(result.ok === false && result.reason, 'file-system');
    assert.match(result.ok === false && result.reason === 'file-system' ? result.message : '', /symbolic link/);
    assert.deepEqual(readdirSync(outside), []);
  });

  it('refuses to replace a per-agent file that is a symbolic link', () => {
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep me');
    mkdirSync(waveDirPath(stateDir, 1), { recursive: true });
    symlinkSync(victim, agentScopePath(stateDir, 1, 'alice'));
    const result = materialize([{ id: 'alice', files: ['a'] }]);
    assert.equal(result.ok, false);
    assert.equal(readFileSync(victim, 'utf8'), 'keep me');
  });

  it('refuses a state directory that is a symbolic link below the confinement root', () => {
    const real = join(root, 'real');
    mkdirSync(real);
    symlinkSync(real, stateDir);
    const result = materializeWave({ stateDir, wave: 1, records: [{ id: 'alice', files: ['a'] }], repoRoot: root }, nodeDeclarationFs(root));
    assert.equal(result.ok, false);
    assert.match(result.ok === false && result.reason === 'file-system' ? result.message : '', /refusing to write through the symbolic link .*\.claude/);
    assert.deepEqual(readdirSync(real), []);
  });

  it('trusts the confinement root itself even when reached through a link, and creates it when missing', () => {
    const real = join(root, 'real');
    mkdirSync(real);
    symlinkSync(real, join(root, 'linked'));
    const viaLink = join(root, 'linked', 'deep', 'state');
    const result = materializeWave({ stateDir: viaLink, wave: 1, records: [{ id: 'alice', files: ['a'] }] }, nodeDeclarationFs(viaLink));
    assert.equal(result.ok, true);
    assert.ok(existsSync(join(real, 'deep', 'state', 'filescopes', 'wave-1', 'alice.json')));
  });

  it('refuses to write outside the confinement root', () => {
    const fs = nodeDeclarationFs(stateDir);
    assert.throws(() => fs.writeAtomic(join(root, 'elsewhere.json'), '[]'), /is not inside/);
    assert.throws(() => fs.remove(join(stateDir, '..', 'x')), /is not inside/);
  });

  describe('readWaveDeclaration statuses', () => {
    const fs = () => nodeDeclarationFs(stateDir);
    beforeEach(() => {
      materialize([{ id: 'alice', files: ['a'] }, { id: 'bob', files: ['b'] }]);
    });
    it('complete', () => assert.equal(readWaveDeclaration(stateDir, 1, fs()).status, 'complete'));
    it('absent (never written)', () => {
      const read = readWaveDeclaration(stateDir, 9, fs());
      assert.equal(read.status, 'absent');
      assert.match(read.problems[0] ?? '', /wave 9 has no aggregate/);
    });
    it('absent with per-agent files (an interrupted write)', () => {
      rmSync(waveSidecarPath(stateDir, 1));
      const read = readWaveDeclaration(stateDir, 1, fs());
      assert.equal(read.status, 'absent');
      assert.equal(read.records, undefined);
      assert.match(read.problems[0] ?? '', /per-agent files but no aggregate.*incomplete/);
    });
    it('invalid aggregate', () => {
      writeFileSync(waveSidecarPath(stateDir, 1), '[{"id": "alice", "files": "a"}]');
      const read = readWaveDeclaration(stateDir, 1, fs());
      assert.equal(read.status, 'invalid');
      assert.match(read.problems[0] ?? '', /is not a JSON array of \{"id", "files"\} records/);
    });
    it('inconsistent: a per-agent file missing', () => {
      rmSync(agentScopePath(stateDir, 1, 'bob'));
      const read = readWaveDeclaration(stateDir, 1, fs());
      assert.equal(read.status, 'inconsistent');
      assert.match(read.problems.join('\n'), /agent "bob" has no scope file in wave 1/);
    });
    it('inconsistent: a per-agent file differs', () => {
      writeFileSync(agentScopePath(stateDir, 1, 'bob'), '["b", "more"]');
      assert.match(readWaveDeclaration(stateDir, 1, fs()).problems.join('\n'), /differs from agent "bob"'s record/);
    });
    it('inconsistent: a stray per-agent file', () => {
      writeFileSync(agentScopePath(stateDir, 1, 'mallory'), '["**"]');
      const read = readWaveDeclaration(stateDir, 1, fs());
      assert.equal(read.status, 'inconsistent');
      assert.deepEqual(read.strayAgentFiles, ['mallory']);
    });
    it('ignores leftover temporary files of a killed write', () => {
      writeFileSync(join(waveDirPath(stateDir, 1), 'carol.json.3141592'), '[]');
      assert.equal(readWaveDeclaration(stateDir, 1, fs()).status, 'complete');
    });
  });

  describe('readAgentScope', () => {
    it('reads a per-agent file', () => {
      materialize([{ id: 'alice', files: ['a', 'b/'] }]);
      assert.deepEqual(readAgentScope(stateDir, 1, 'alice', nodeDeclarationFs(stateDir)), { found: true, path: agentScopePath(stateDir, 1, 'alice'), entries: ['a', 'b/'] });
    });
    const problems: Array<[string, string, string, RegExp]> = [
      ['a hostile id', '../../etc/passwd', 'bad-agent-id', /must match/],
      ['an absent agent', 'nobody', 'absent', /agent "nobody" has no scope file in wave 1/],
      ['a file that is not an array of strings', 'broken', 'invalid', /is not a JSON array of path strings/],
    ];
    for (const [name, id, reason, pattern] of problems) {
      it(`reports ${name} as data`, () => {
        mkdirSync(waveDirPath(stateDir, 1), { recursive: true });
        writeFileSync(join(waveDirPath(stateDir, 1), 'broken.json'), '{"files": []}');
        const read = readAgentScope(stateDir, 1, id, nodeDeclarationFs(stateDir));
        assert.equal(read.found, false);
        assert.equal(read.found === false && read.reason, reason);
        assert.match(read.found === false ? read.message : '', pattern);
      });
    }
  });

  it('writeWaveDeclaration reports a file-system failure as data with what was done', () => {
    mkdirSync(join(stateDir, 'filescopes'), { recursive: true });
    writeFileSync(join(stateDir, 'filescopes', 'wave-1'), 'a file where a directory belongs');
    const result = writeWaveDeclaration(stateDir, 1, [{ id: 'a', files: ['x'] }], nodeDeclarationFs(stateDir));
    assert.equal(result.ok, false);
    assert.deepEqual(result.written, []);
    assert.match(result.ok === false ? result.message : '', /is not a directory/);
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
