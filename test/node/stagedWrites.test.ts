// Writes staged ahead of the safe chain (src/node/stagedWrites.ts), on real directories: a staged file the
// chain asks for with the same text is renamed into place, already fsynced; anything else (other text, a
// staged file changed since, a link planted since) is written or refused as an unstaged write would be;
// nothing staged and unused is left behind. The order of fsyncs and renames is observed by watching the
// calls into node:fs, which still run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeDeclarationFs, UnsafePathError } from '../../src/node/declarationFs';
import { makeSpareFiles, MAX_SPARE_FILES, openFileLimit, spareFileBound, stageWrites } from '../../src/node/stagedWrites';
import { declarationFiles, readWaveDeclaration, writeWaveDeclaration } from '../../src/planner/plan/declarationStore';
import type { DeclarationFs } from '../../src/planner/plan/declarationStore';
import { syncedWaveFiles, writeSyncedWave } from '../../src/planner/sync/syncPlan';
import type { SyncableWave } from '../../src/planner/sync/syncPlan';
import { observeFsAsync } from '../support/fsCalls';
import { claimOf, cloneNamed, waveToPublish } from '../planner/sync/syncFixtures';

/** A staged file shown by the file it stands for. */
const stagedLabel = (path: string) => (path.endsWith('.tmp') ? `${path.slice(0, path.indexOf('.json') + '.json'.length)} (staged)` : path);


/** Every file below `dir`, relative to it, sorted. */
function filesBelow(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesBelow(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]))
    .sort();
}

/** `fs`, with every write that reaches it recorded. */
function recordingFs(fs: DeclarationFs): { fs: DeclarationFs; writes: string[] } {
  const writes: string[] = [];
  return {
    fs: { ...fs, writeAtomic: (path, text) => (writes.push(path), fs.writeAtomic(path, text)) },
    writes,
  };
}

/** Wave 1 of another clone as a sync selects it, with `agents` as its records. */
function published(agents: Array<{ id: string; files: string[] }>): SyncableWave {
  const alpha = cloneNamed('c-alpha');
  const wave = waveToPublish(alpha, 1, agents);
  return { clone: alpha.id, wave: 1, dir: '', info: wave.info, manifest: wave.manifest, records: agents, problems: [], claim: claimOf(alpha, 1) };
}

/** The files of wave 1 over `records` as the chain writes them: each agent's, then the aggregate. */
function waveFiles(stateDir: string, records: Array<{ id: string; files: string[] }>) {
  const files = declarationFiles(stateDir, 1, records);
  return [...files.agentFiles, files.aggregate];
}

describe('writes staged ahead of the safe chain (src/node/stagedWrites.ts)', () => {
  let root: string;
  let stateDir: string;
  const records = [
    { id: 'alice', files: ['a/'] },
    { id: 'bob', files: ['b/', 'shared/b.ts'] },
    { id: 'carol', files: ['c/**'] },
  ];
  const planned = () => waveFiles(stateDir, records);
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-staged-')));
    stateDir = join(root, '.claude');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('renames every staged file into place, each fsynced before its rename, and the wave reads back complete', async () => {
    const { result: stagedFs, calls } = await observeFsAsync(async () => {
      const staged = await stageWrites(nodeDeclarationFs(root), root, planned());
      const write = writeWaveDeclaration(stateDir, 1, records, staged);
      assert.equal(write.ok, true);
      staged.discard();
      return staged;
    }, stagedLabel);
    assert.deepEqual(stagedFs.used, planned().map((file) => file.path));
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(root)).status, 'complete');
    for (const file of planned()) {
      assert.equal(readFileSync(file.path, 'utf8'), file.text);
      const fsync = calls.indexOf(`fsync ${file.path} (staged)`);
      const rename = calls.indexOf(`rename ${file.path}`);
      assert.ok(fsync !== -1 && rename !== -1 && fsync < rename, `${file.path}: its data is durable before its rename\n${calls.join('\n')}`);
    }
    // The chain's own order holds: the agents' directory is durable before the aggregate is renamed in.
    const waveDir = join(stateDir, 'filescopes', 'wave-1');
    const aggregate = join(stateDir, 'filescopes', 'wave-1.scopes.json');
    assert.ok(calls.indexOf(`fsync ${waveDir}`) < calls.indexOf(`rename ${aggregate}`), calls.join('\n'));
    assert.ok(calls.lastIndexOf(`fsync ${join(stateDir, 'filescopes')}`) > calls.indexOf(`rename ${aggregate}`), calls.join('\n'));
    assert.deepEqual(filesBelow(stateDir), ['filescopes/wave-1.scopes.json', 'filescopes/wave-1/alice.json', 'filescopes/wave-1/bob.json', 'filescopes/wave-1/carol.json']);
  });

  it('starts each staged file\'s fsync as soon as the file is made, before the next file is even asked for', async () => {
    const events: string[] = [];
    const mutable = fs as unknown as { fsync: typeof fs.fsync; openSync: typeof fs.openSync };
    const real = { fsync: fs.fsync, openSync: fs.openSync };
    const names = new Map<number, string>();
    mutable.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
      const descriptor = (real.openSync as (...args: unknown[]) => number)(path, ...rest);
      names.set(descriptor, String(path));
      return descriptor;
    }) as typeof fs.openSync;
    mutable.fsync = ((descriptor: number, done: (error: NodeJS.ErrnoException | null) => void) => {
      events.push(`fsync ${stagedLabel(names.get(descriptor) ?? String(descriptor))}`);
      real.fsync(descriptor, done);
    }) as typeof fs.fsync;
    function* asked() {
      for (const file of planned()) {
        events.push(`asked ${file.path}`);
        yield file;
      }
    }
    try {
      const staged = await stageWrites(nodeDeclarationFs(root), root, asked());
      staged.discard();
    } finally {
      Object.assign(mutable, real);
    }
    assert.deepEqual(events, planned().flatMap((file) => [`asked ${file.path}`, `fsync ${file.path} (staged)`]));
  });

  it('writes a file whose text differs from the staged one through the wrapped file system, and discards the staged one', async () => {
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned());
    const changed = records.map((record) => (record.id === 'bob' ? { id: 'bob', files: ['b/'] } : record));
    assert.equal(writeWaveDeclaration(stateDir, 1, changed, staged).ok, true);
    staged.discard();
    const bob = join(stateDir, 'filescopes', 'wave-1', 'bob.json');
    assert.equal(staged.used.includes(bob), false);
    assert.equal(readFileSync(bob, 'utf8'), '[\n  "b/"\n]\n');
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(root)).status, 'complete');
    assert.equal(filesBelow(stateDir).some((name) => name.endsWith('.tmp')), false, filesBelow(stateDir).join('\n'));
  });

  it('does not rename a staged file that was changed after staging: the write goes through as usual', async () => {
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned());
    const alice = join(stateDir, 'filescopes', 'wave-1', 'alice.json');
    const temporary = readdirSync(join(stateDir, 'filescopes', 'wave-1')).find((name) => name.startsWith('alice.json.') && name.endsWith('.tmp'));
    assert.ok(temporary !== undefined);
    // Same length, other bytes: only a comparison of the contents tells.
    const path = join(stateDir, 'filescopes', 'wave-1', temporary);
    writeFileSync(path, readFileSync(path, 'utf8').replace('a/', 'z/'));
    assert.equal(writeWaveDeclaration(stateDir, 1, records, staged).ok, true);
    staged.discard();
    assert.equal(staged.used.includes(alice), false);
    assert.equal(readFileSync(alice, 'utf8'), '[\n  "a/"\n]\n');
    assert.equal(filesBelow(stateDir).some((name) => name.endsWith('.tmp')), false);
  });

  it('refuses a link planted at a target after staging, and leaves what it points to alone', async () => {
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned());
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(stateDir, 'filescopes', 'wave-1', 'alice.json'));
    const write = writeWaveDeclaration(stateDir, 1, records, staged);
    staged.discard();
    assert.equal(write.ok, false);
    assert.match(write.ok ? '' : write.message, /symbolic link/);
    assert.equal(readFileSync(victim, 'utf8'), 'keep me');
    assert.equal(filesBelow(stateDir).some((name) => name.endsWith('.tmp')), false);
  });

  it('stages nothing under a directory that is a link: the write is then refused by the wrapped file system', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(stateDir, 'filescopes'), { recursive: true });
    symlinkSync(outside, join(stateDir, 'filescopes', 'wave-1'));
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned());
    assert.deepEqual(readdirSync(outside), []);
    assert.throws(() => staged.writeAtomic(join(stateDir, 'filescopes', 'wave-1', 'alice.json'), planned()[0]?.text ?? ''), UnsafePathError);
    staged.discard();
    assert.deepEqual(readdirSync(outside), []);
  });

  it('stages a target asked for with two texts in turn, and each write takes the one holding its text', async () => {
    const manifest = join(stateDir, 'wave-scope.json');
    const skeleton = '{"allowedPaths":[]}\n';
    const final = '{"allowedPaths":["a/"]}\n';
    const { fs: inner, writes } = recordingFs(nodeDeclarationFs(root));
    const staged = await stageWrites(inner, root, [{ path: manifest, text: skeleton }, { path: manifest, text: final }, { path: manifest, text: skeleton }]);
    assert.equal(readdirSync(stateDir).filter((name) => name.endsWith('.tmp')).length, 2, 'one staged file per text, a text asked for twice staged once');
    staged.writeAtomic(manifest, skeleton);
    assert.equal(readFileSync(manifest, 'utf8'), skeleton);
    staged.writeAtomic(manifest, final);
    staged.sync?.();
    staged.discard();
    assert.equal(readFileSync(manifest, 'utf8'), final);
    assert.deepEqual(staged.used, [manifest, manifest]);
    assert.deepEqual(writes, [], 'nothing went through the wrapped file system');
    assert.deepEqual(readdirSync(stateDir), ['wave-scope.json']);
  });

  it('discards what was staged and never used, and the directories it made for it', async () => {
    mkdirSync(stateDir);
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned());
    assert.equal(filesBelow(stateDir).length, planned().length);
    staged.discard();
    assert.deepEqual(readdirSync(stateDir), []);
    assert.equal(existsSync(join(stateDir, 'filescopes')), false);
    assert.deepEqual(staged.used, []);
  });

  it('a wave amended in one agent and synced through the stage: replaces the changed agent, the aggregate and the manifest (its skeleton first), and leaves the others alone', async () => {
    const agents = [
      { id: 'alice', files: ['a/'] },
      { id: 'bob', files: ['b/'] },
      { id: 'carol', files: ['c/'] },
    ];
    assert.equal(writeSyncedWave({ repoRoot: root, stateDir, wave: published(agents) }, nodeDeclarationFs(root)).ok, true);
    const agentFile = (id: string) => join(stateDir, 'filescopes', 'wave-1', `${id}.json`);
    const inodes = new Map(['alice', 'bob', 'carol'].map((id) => [id, statSync(agentFile(id)).ino]));
    const amended = published(agents.map((record) => (record.id === 'bob' ? { id: 'bob', files: ['b/', 'shared/b.ts'] } : record)));
    const replacing = JSON.parse(readFileSync(join(stateDir, 'wave-scope.json'), 'utf8'));

    const { fs: inner, writes } = recordingFs(nodeDeclarationFs(root));
    const staged = await stageWrites(inner, root, syncedWaveFiles(stateDir, amended, replacing));
    const result = writeSyncedWave({ repoRoot: root, stateDir, wave: amended }, staged);
    staged.discard();

    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(writes, [], 'every write was prepared ahead: the skeleton too');
    assert.deepEqual(staged.skipped, [agentFile('alice'), agentFile('carol')]);
    const manifest = join(stateDir, 'wave-scope.json');
    assert.deepEqual(staged.used, [manifest, agentFile('bob'), join(stateDir, 'filescopes', 'wave-1.scopes.json'), manifest]);
    assert.equal(statSync(agentFile('alice')).ino, inodes.get('alice'));
    assert.notEqual(statSync(agentFile('bob')).ino, inodes.get('bob'));
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(root)).status, 'complete');
    assert.ok(JSON.parse(readFileSync(manifest, 'utf8')).allowedPaths.includes('shared/b.ts'));
    assert.equal(filesBelow(stateDir).some((name) => name.endsWith('.tmp')), false, filesBelow(stateDir).join('\n'));
  });
  it('a wave directory swapped for a link between two writes is never written through', async () => {
    const waveDir = join(stateDir, 'filescopes', 'wave-1');
    for (const withSpares of [true, false]) {
      rmSync(stateDir, { recursive: true, force: true });
      rmSync(join(root, 'elsewhere'), { recursive: true, force: true });
      mkdirSync(join(root, 'elsewhere'));
      const spares = withSpares ? makeSpareFiles(root, join(stateDir, 'filescopes'), 4) : undefined;
      const staged = await stageWrites(nodeDeclarationFs(root), root, planned(), spares);
      let swapped = false;
      const write = writeWaveDeclaration(stateDir, 1, records, staged, {
        afterWrite: (step) => {
          if (swapped || step.kind !== 'agent-file') return;
          swapped = true;
          renameSync(waveDir, `${waveDir}.moved`);
          symlinkSync(join(root, 'elsewhere'), waveDir);
        },
      });
      staged.discard();
      spares?.discard();
      assert.equal(swapped, true);
      assert.deepEqual(readdirSync(join(root, 'elsewhere')), [], 'nothing written through the link');
      if (withSpares && process.platform === 'linux') {
        // The directory was held when the first file was renamed into it, and the spares lie in filescopes/:
        // the other renames follow the directory that was checked to where it went.
        assert.equal(write.ok, true, JSON.stringify(write));
        assert.deepEqual(readdirSync(`${waveDir}.moved`).sort(), ['alice.json', 'bob.json', 'carol.json']);
      } else {
        // The staged files beside their targets went with the directory: the writes go through the wrapped
        // file system, which refuses the link (as every write does where no directory can be held).
        assert.equal(write.ok, false);
        assert.match(write.ok ? '' : write.message, /refusing to write through the symbolic link/);
      }
    }
  });
});

describe('writes that find their file already in place (src/node/stagedWrites.ts)', () => {
  let root: string;
  let state: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-unchanged-')));
    state = join(root, 'state');
    mkdirSync(join(state, 'wave-1'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Stages `text` for `path`, then writes it as the chain would, and returns the staged file system. */
  async function writeStaged(path: string, text: string, betweenStageAndWrite: () => void = () => undefined) {
    const staged = await stageWrites(nodeDeclarationFs(state), state, [{ path, text }]);
    betweenStageAndWrite();
    try {
      staged.writeAtomic(path, text);
      staged.sync?.();
    } finally {
      staged.discard();
    }
    return staged;
  }

  const cases: Array<{ title: string; prepare: (path: string) => void; text: string; skipped: boolean }> = [
    { title: 'an identical plain file is left alone', prepare: (path) => writeFileSync(path, '["a/"]\n'), text: '["a/"]\n', skipped: true },
    { title: 'a file whose text differs is rewritten', prepare: (path) => writeFileSync(path, '["a/"]\n'), text: '["b/"]\n', skipped: false },
    { title: 'a missing file is written', prepare: () => undefined, text: '["a/"]\n', skipped: false },
    { title: 'a file differing only in a trailing newline is rewritten', prepare: (path) => writeFileSync(path, '["a/"]'), text: '["a/"]\n', skipped: false },
    {
      title: 'an identical file hard-linked elsewhere is rewritten (replacing the link)',
      prepare: (path) => {
        writeFileSync(join(root, 'outside.json'), '["a/"]\n');
        linkSync(join(root, 'outside.json'), path);
      },
      text: '["a/"]\n',
      skipped: false,
    },
  ];
  for (const { title, prepare, text, skipped } of cases) {
    it(title, async () => {
      const path = join(state, 'wave-1', 'alice.json');
      prepare(path);
      const before = statSync(path, { throwIfNoEntry: false })?.ino;
      const staged = await writeStaged(path, text);
      assert.equal(readFileSync(path, 'utf8'), text);
      assert.deepEqual(staged.skipped, skipped ? [path] : []);
      assert.deepEqual(staged.used, skipped ? [] : [path], 'a file not left alone is renamed in from the stage');
      if (before !== undefined) assert.equal(statSync(path).ino === before, skipped, skipped ? 'the same file' : 'a new file');
      assert.equal(statSync(path).nlink, 1);
      assert.deepEqual(readdirSync(join(state, 'wave-1')), ['alice.json'], 'nothing staged is left behind');
    });
  }

  it('a file found in place and changed before the chain reaches it is rewritten, not trusted from the stage', async () => {
    const path = join(state, 'wave-1', 'alice.json');
    writeFileSync(path, '["a/"]\n');
    // The same length, other bytes: only the contents tell.
    const staged = await writeStaged(path, '["a/"]\n', () => writeFileSync(path, '["z/"]\n'));
    assert.equal(readFileSync(path, 'utf8'), '["a/"]\n');
    assert.deepEqual(staged.skipped, []);
  });

  it('a file found in place and then hard-linked elsewhere is rewritten, which replaces the link', async () => {
    const path = join(state, 'wave-1', 'alice.json');
    writeFileSync(path, '["a/"]\n');
    const outside = join(root, 'outside.json');
    await writeStaged(path, '["a/"]\n', () => linkSync(path, outside));
    assert.equal(statSync(path).nlink, 1);
    assert.notEqual(statSync(path).ino, statSync(outside).ino);
  });

  it('an identical file reached through a symbolic link is not trusted: the write is refused as before', async () => {
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'alice.json'), '["a/"]\n');
    symlinkSync(join(root, 'real'), join(state, 'linked'));
    const throughDirectory = await stageWrites(nodeDeclarationFs(state), state, [{ path: join(state, 'linked', 'alice.json'), text: '["a/"]\n' }]);
    assert.throws(() => throughDirectory.writeAtomic(join(state, 'linked', 'alice.json'), '["a/"]\n'), UnsafePathError);
    throughDirectory.discard();
    assert.deepEqual(throughDirectory.skipped, []);
    const bob = join(state, 'wave-1', 'bob.json');
    symlinkSync(join(root, 'real', 'alice.json'), bob);
    const throughFile = await stageWrites(nodeDeclarationFs(state), state, [{ path: bob, text: '["a/"]\n' }]);
    assert.throws(() => throughFile.writeAtomic(bob, '["a/"]\n'), UnsafePathError);
    throughFile.discard();
    assert.deepEqual(throughFile.skipped, []);
    assert.equal(readFileSync(join(root, 'real', 'alice.json'), 'utf8'), '["a/"]\n');
  });

  it('a directory replaced by a link after staging is never written through, even for a file found in place', async () => {
    const path = join(state, 'wave-1', 'alice.json');
    writeFileSync(path, '["a/"]\n');
    const staged = await stageWrites(nodeDeclarationFs(state), state, [{ path, text: '["a/"]\n' }]);
    mkdirSync(join(root, 'elsewhere'));
    writeFileSync(join(root, 'elsewhere', 'alice.json'), '["a/"]\n');
    rmSync(join(state, 'wave-1'), { recursive: true });
    symlinkSync(join(root, 'elsewhere'), join(state, 'wave-1'));
    assert.throws(() => staged.writeAtomic(path, '["a/"]\n'), UnsafePathError);
    staged.discard();
    assert.deepEqual(staged.skipped, []);
  });
});

describe('spare files made ahead of staging (makeSpareFiles)', () => {
  let root: string;
  let stateDir: string;
  let filescopes: string;
  const records = [
    { id: 'alice', files: ['a/'] },
    { id: 'bob', files: ['b/'] },
  ];
  const planned = () => waveFiles(stateDir, records);
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-spares-')));
    stateDir = join(root, '.claude');
    filescopes = join(stateDir, 'filescopes');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('makes empty files, with their directories, and discard removes the files and those directories', () => {
    const spares = makeSpareFiles(root, filescopes, 4);
    const made = readdirSync(filescopes);
    assert.equal(made.length, 4);
    for (const name of made) {
      assert.match(name, /^staged\..*\.tmp$/);
      assert.equal(statSync(join(filescopes, name)).size, 0);
      assert.equal(statSync(join(filescopes, name)).mode & 0o777, 0o644);
    }
    spares.discard();
    assert.equal(existsSync(stateDir), false, 'the state directory, made for the spares, is gone again');
  });

  it('staging fills spares instead of creating files, renames each into place from filescopes/, and nothing is left over', async () => {
    let spares = makeSpareFiles(root, filescopes, 0);
    const { result: staged, calls } = await observeFsAsync(async () => {
      spares = makeSpareFiles(root, filescopes, planned().length + 2);
      const staged = await stageWrites(nodeDeclarationFs(root), root, planned(), spares);
      assert.equal(readdirSync(join(filescopes, 'wave-1')).length, 0, 'nothing created beside the targets: the spares hold the texts');
      assert.equal(writeWaveDeclaration(stateDir, 1, records, staged).ok, true);
      staged.discard();
      return staged;
    }, (path) => (path.includes('staged.') ? 'spare' : path));
    spares.discard();
    assert.deepEqual(staged.used, planned().map((file) => file.path));
    const firstRename = calls.findIndex((call) => call.startsWith('rename '));
    assert.ok(firstRename !== -1 && calls.filter((call) => call === 'fsync spare').length === planned().length, calls.join('\n'));
    assert.ok(calls.lastIndexOf('fsync spare') < firstRename, `every spare is durable before the first rename\n${calls.join('\n')}`);
    for (const file of planned()) assert.equal(readFileSync(file.path, 'utf8'), file.text);
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(root)).status, 'complete');
    assert.deepEqual(filesBelow(stateDir), ['filescopes/wave-1.scopes.json', 'filescopes/wave-1/alice.json', 'filescopes/wave-1/bob.json'], 'the two spares not taken are removed');
  });

  it('creates the files it has no spare for', async () => {
    const spares = makeSpareFiles(root, filescopes, 1);
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned(), spares);
    assert.equal(readdirSync(join(filescopes, 'wave-1')).filter((name) => name.endsWith('.tmp')).length, planned().length - 2, 'the agents\' files but the one filled into the spare');
    assert.equal(writeWaveDeclaration(stateDir, 1, records, staged).ok, true);
    staged.discard();
    spares.discard();
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(root)).status, 'complete');
    assert.equal(filesBelow(stateDir).some((name) => name.endsWith('.tmp')), false, filesBelow(stateDir).join('\n'));
  });

  it('makes no more than the bound, however many are asked for (the count comes from a plan someone else pushed)', () => {
    const spares = makeSpareFiles(root, filescopes, 20_000);
    const made = readdirSync(filescopes).length;
    spares.discard();
    assert.equal(made, spareFileBound(20_000, openFileLimit()));
    assert.ok(made <= MAX_SPARE_FILES, `${made} spares`);
    assert.equal(existsSync(stateDir), false);
  });

  it('the bound: the count asked for, at most MAX_SPARE_FILES and a quarter of the open-file limit', () => {
    const cases: Array<[count: number, openFiles: number | undefined, bound: number]> = [
      [66, undefined, 66],
      [66, 20_000, 66],
      [66, 1_048_576, 66],
      [MAX_SPARE_FILES, 1_048_576, MAX_SPARE_FILES],
      [MAX_SPARE_FILES + 1, 1_048_576, MAX_SPARE_FILES],
      [200_000, undefined, MAX_SPARE_FILES],
      [200_000, 20_000, MAX_SPARE_FILES],
      [200_000, 1024, 256],
      [200_000, 256, 64],
      [66, 128, 32],
      [5, 3, 0],
      [0, 20_000, 0],
      [-3, 20_000, 0],
    ];
    for (const [count, openFiles, bound] of cases) assert.equal(spareFileBound(count, openFiles), bound, `${count} asked, limit ${openFiles}`);
    assert.ok(MAX_SPARE_FILES >= 66 * 2, 'the benchmark\'s 64-agent wave (66 files) is served in full, with room');
  });

  it('reads the soft open-file limit from a limits file as Linux writes it; undefined when unlimited or unreadable', () => {
    const limits = join(root, 'limits');
    const table = (soft: string, hard: string) =>
      [
        'Limit                     Soft Limit           Hard Limit           Units     ',
        'Max processes             96555                96555                processes ',
        `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
        'Max locked memory         8388608              8388608              bytes     ',
        '',
      ].join('\n');
    writeFileSync(limits, table('1024', '524288'));
    assert.equal(openFileLimit(limits), 1024);
    writeFileSync(limits, table('unlimited', 'unlimited'));
    assert.equal(openFileLimit(limits), undefined);
    assert.equal(openFileLimit(join(root, 'missing')), undefined);
  });

  it('makes none through a link, and leaves what it points to alone', () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    mkdirSync(stateDir);
    symlinkSync(outside, filescopes);
    const spares = makeSpareFiles(root, filescopes, 3);
    assert.equal(spares.take(), undefined);
    spares.discard();
    assert.deepEqual(readdirSync(outside), []);
  });

  it('a spare changed after it was filled is not renamed into place: the write goes through as usual', async () => {
    const spares = makeSpareFiles(root, filescopes, planned().length);
    const staged = await stageWrites(nodeDeclarationFs(root), root, planned(), spares);
    const filled = readdirSync(filescopes).filter((name) => name.startsWith('staged.')).map((name) => join(filescopes, name));
    const alice = filled.find((path) => readFileSync(path, 'utf8') === '[\n  "a/"\n]\n');
    assert.ok(alice !== undefined, 'a spare holds alice\'s text');
    writeFileSync(alice, readFileSync(alice, 'utf8').replace('a/', 'z/'));
    assert.equal(writeWaveDeclaration(stateDir, 1, records, staged).ok, true);
    staged.discard();
    spares.discard();
    const path = join(filescopes, 'wave-1', 'alice.json');
    assert.equal(staged.used.includes(path), false);
    assert.equal(readFileSync(path, 'utf8'), '[\n  "a/"\n]\n');
    assert.equal(filesBelow(stateDir).some((name) => name.endsWith('.tmp')), false, filesBelow(stateDir).join('\n'));
  });
});
