// What a writer confined to the checkout must refuse before its first write: a symbolic link (or a
// directory where a file goes) planted in the state directory, each made over a plan already written
// and taken away again. Shared by the tests of plan write, materialize and sync, which run the built CLI.
import assert from 'node:assert/strict';
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Everything below `dir` as it is, links not followed: each name with its text, `/` for a directory,
 * `-> target` for a link. A `dir` that is itself a link or a file is that one entry.
 */
export function snapshotTree(dir: string): Array<[string, string]> {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) return [];
  if (stat.isSymbolicLink()) return [['.', `-> ${readlinkSync(dir)}`]];
  if (!stat.isDirectory()) return [['.', readFileSync(dir, 'utf8')]];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const stat = lstatSync(path);
      return [name, stat.isSymbolicLink() ? `-> ${readlinkSync(path)}` : stat.isDirectory() ? '/' : readFileSync(path, 'utf8')];
    });
}

/** One entry planted where a writer goes: `path` (relative to the repository) replaced by a link to a copy, or by a directory. */
export interface Plant {
  name: string;
  /** The entry, relative to the repository root, as the refusal names it. */
  path: string;
  /** `link`: a symbolic link to a copy of what was there, kept in `outside`; `directory`: an empty directory. */
  kind: 'link' | 'directory';
}

/**
 * Replaces `path` below `root` as `plant` says, keeping a copy of what was there at `outside` (which the
 * link points to); returns the function that puts it back.
 */
export function plantAt(root: string, plant: Plant, outside: string): () => void {
  const path = join(root, plant.path);
  rmSync(outside, { recursive: true, force: true });
  cpSync(path, outside, { recursive: true });
  rmSync(path, { recursive: true });
  if (plant.kind === 'link') symlinkSync(outside, path);
  else mkdirSync(path);
  return () => {
    rmSync(path, { recursive: true });
    cpSync(outside, path, { recursive: true });
    rmSync(outside, { recursive: true, force: true });
  };
}

/** The plants every writer of a wave's files refuses, for a state directory `.claude` holding wave `wave` with the agents `kept` (written again) and `dropped` (removed). */
export function plantsInWave(wave: number, kept: string, dropped: string): Plant[] {
  const waveDir = `.claude/filescopes/wave-${wave}`;
  return [
    { name: 'a per-agent file linked to a copy elsewhere', path: `${waveDir}/${kept}.json`, kind: 'link' },
    { name: 'the per-agent file of an agent the wave drops, linked elsewhere', path: `${waveDir}/${dropped}.json`, kind: 'link' },
    { name: 'a directory where a per-agent file goes', path: `${waveDir}/${kept}.json`, kind: 'directory' },
    { name: 'the aggregate linked to a copy elsewhere', path: `.claude/filescopes/wave-${wave}.scopes.json`, kind: 'link' },
    { name: 'the wave\'s directory linked to a copy elsewhere', path: waveDir, kind: 'link' },
    { name: 'filescopes/ linked to a copy elsewhere', path: '.claude/filescopes', kind: 'link' },
    { name: 'the state directory linked to a copy elsewhere', path: '.claude', kind: 'link' },
  ];
}

/**
 * For each of `plants`, planted below `root` in turn: `attempt` (a run of the built CLI as `command`) is
 * refused with exit 1, its first line naming the plant, nothing written or removed in `stateDir` or at the
 * link's target; then the plant is taken away and `stateDir` is as it was.
 */
export function assertEachPlantRefused(
  root: string,
  stateDir: string,
  plants: readonly Plant[],
  command: string,
  attempt: () => { status: number | null; stdout: string; stderr: string },
): void {
  const outside = join(root, '..', `${root.split('/').pop()}-outside`);
  const asWritten = snapshotTree(stateDir);
  try {
    for (const plant of plants) {
      const restore = plantAt(root, plant, outside);
      const planted = { here: snapshotTree(stateDir), outside: snapshotTree(outside) };
      const refused = attempt();
      assert.equal(refused.status, 1, `${plant.name}: ${refused.stderr}`);
      const found = plant.kind === 'link' ? 'a symbolic link' : 'not a regular file';
      assert.equal(refused.stderr.startsWith(`ERROR: ${plant.path} is ${found} where ${command} writes the plan: `), true, `${plant.name}: ${refused.stderr}`);
      assert.match(refused.stderr, /Nothing was written\.\n$/, plant.name);
      assert.equal(refused.stdout, '');
      assert.deepEqual({ here: snapshotTree(stateDir), outside: snapshotTree(outside) }, planted, `${plant.name}: nothing was written or removed, here or elsewhere`);
      restore();
      assert.deepEqual(snapshotTree(stateDir), asWritten, `${plant.name}: taken away`);
    }
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
}

