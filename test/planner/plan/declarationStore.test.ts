import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentScopePath, waveDirPath, waveSidecarPath } from '../../../src/planner/plan/declarationPaths';
import { listDeclaredWaves, materializeWave, readAgentScope, readOnceView, readWaveDeclaration, writeWaveDeclaration } from '../../../src/planner/plan/declarationStore';
import type { DeclarationFs, WriteStep } from '../../../src/planner/plan/declarationStore';
import { nodeDeclarationFs } from '../../../src/node/declarationFs';

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

  it('refuses a symbolic link planted in the state directory before its first write, naming it', () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    materialize([{ id: 'alice', files: ['a'] }, { id: 'bob', files: ['b'] }], 2);
    const before = tree();
    mkdirSync(join(stateDir, 'filescopes'), { recursive: true });
    symlinkSync(outside, join(stateDir, 'filescopes', 'wave-1'));
    const linked = materialize([{ id: 'alice', files: ['a'] }]);
    assert.ok(!linked.ok && linked.reason === 'in-the-way');
    assert.deepEqual(linked.inTheWay, { path: join(stateDir, 'filescopes', 'wave-1'), found: 'symlink' });
    // The aggregate is the writer's first removal: a plant further on leaves it where it was.
    symlinkSync(outside, agentScopePath(stateDir, 2, 'carol'));
    const stale = materialize([{ id: 'alice', files: ['a'] }], 2);
    assert.ok(!stale.ok && stale.reason === 'in-the-way');
    assert.deepEqual(stale.inTheWay, { path: agentScopePath(stateDir, 2, 'carol'), found: 'symlink' });
    assert.deepEqual(tree(), [...before, 'filescopes/wave-1', 'filescopes/wave-2/carol.json'].sort());
    assert.deepEqual(readdirSync(outside), []);
  });

  it('still refuses, through its own checks, a symbolic link its look ahead missed (planted just after it)', () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(stateDir, 'filescopes'), { recursive: true });
    symlinkSync(outside, join(stateDir, 'filescopes', 'wave-1'));
    const blind: DeclarationFs = { ...nodeDeclarationFs(stateDir), findInTheWay: () => undefined };
    const result = materializeWave({ stateDir, wave: 1, records: [{ id: 'alice', files: ['a'] }], repoRoot: root }, blind);
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
    assert.ok(!result.ok && result.reason === 'in-the-way');
    assert.deepEqual(result.inTheWay, { path: stateDir, found: 'symlink' });
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

describe('readOnceView: one reading for a run of checks', () => {
  /** A file system over `files` (path to text; a directory is listed from the paths below it) that counts its reads. */
  function countingFs(files: Map<string, string>, failing = new Set<string>()) {
    const reads: string[] = [];
    const fs: DeclarationFs = {
      readText(path) {
        reads.push(`read ${path}`);
        if (failing.has(path)) throw new Error(`EACCES: ${path}`);
        return files.get(path);
      },
      listDir(path) {
        reads.push(`list ${path}`);
        const names = [...files.keys()].filter((file) => file.startsWith(`${path}/`)).map((file) => file.slice(path.length + 1));
        return names.length === 0 ? undefined : names;
      },
      writeAtomic: (path, text) => void files.set(path, text),
      remove: (path) => files.delete(path),
    };
    return { fs, reads };
  }

  it('reads each path and each listing once, and answers again with what it read, absence included', () => {
    const files = new Map([['/s/a.json', '["a/"]'], ['/s/w/b.json', '["b/"]']]);
    const { fs, reads } = countingFs(files);
    const view = readOnceView(fs);
    for (let round = 0; round < 3; round += 1) {
      assert.equal(view.readText('/s/a.json'), '["a/"]');
      assert.equal(view.readText('/s/missing.json'), undefined);
      assert.deepEqual(view.listDir('/s/w'), ['b.json']);
      assert.equal(view.listDir('/s/none'), undefined);
    }
    assert.deepEqual(reads, ['read /s/a.json', 'read /s/missing.json', 'list /s/w', 'list /s/none']);
  });

  it('answers every check with the same reading, even when the file changes in between', () => {
    const files = new Map([['/s/a.json', 'first']]);
    const view = readOnceView(countingFs(files).fs);
    assert.equal(view.readText('/s/a.json'), 'first');
    files.set('/s/a.json', 'second');
    assert.equal(view.readText('/s/a.json'), 'first', 'the checks decide on one consistent reading');
  });

  it('throws the first failure again on every later read of that path', () => {
    const { fs, reads } = countingFs(new Map(), new Set(['/s/locked.json']));
    const view = readOnceView(fs);
    assert.throws(() => view.readText('/s/locked.json'), /EACCES/);
    assert.throws(() => view.readText('/s/locked.json'), /EACCES/);
    assert.deepEqual(reads, ['read /s/locked.json']);
  });

  it('refuses to write or remove, and a caller changing a listing it got does not change the next answer', () => {
    const files = new Map([['/s/w/b.json', '["b/"]']]);
    const view = readOnceView(countingFs(files).fs);
    assert.throws(() => view.writeAtomic('/s/a.json', 'x'), /read-once view cannot write/);
    assert.throws(() => view.remove('/s/w/b.json'), /read-once view cannot write/);
    assert.deepEqual([...files.keys()], ['/s/w/b.json'], 'nothing was written or removed underneath');
    view.listDir('/s/w')?.push('planted.json');
    assert.deepEqual(view.listDir('/s/w'), ['b.json']);
  });
});
