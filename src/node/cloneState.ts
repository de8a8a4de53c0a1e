// What a clone keeps about itself for sync, in its git directory (`<git-dir>/wave-scope/`): its identity
// (`clone.json`, made once and kept, so claims made before a restart are still this clone's) and its
// sync state (`sync-state.json`, see src/planner/sync/localState.ts). The git directory is per checkout
// (a linked worktree has its own), is never committed, and the write gate keeps agents out of it.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { CloneIdentity } from '../planner/sync/claims';
import { isCloneId } from '../planner/sync/claims';
import { emptyLocalSyncState, formatLocalSyncState, parseLocalSyncState } from '../planner/sync/localState';
import type { LocalSyncState } from '../planner/sync/localState';
import { readTextIfExists } from './declarationFs';
import { runGitProcess } from './planRefGit';

/** The facts about a checkout that sync needs, from one `git rev-parse`. */
export interface SyncRepository {
  /** The work tree's top level. */
  root: string;
  /** This checkout's own git directory (absolute). */
  gitDir: string;
  /** core.ignorecase. */
  ignoreCase: boolean;
}

/** Locates the checkout around `cwd`; undefined outside git. */
export function locateSyncRepository(cwd: string): SyncRepository | undefined {
  let run;
  try {
    run = runGitProcess(cwd, ['rev-parse', '--show-toplevel', '--absolute-git-dir']);
  } catch {
    return undefined;
  }
  if (run.status !== 0) return undefined;
  const [root, gitDir] = run.stdout.toString('utf8').split('\n');
  if (root === undefined || root === '' || gitDir === undefined || gitDir === '') return undefined;
  const config = runGitProcess(root, ['config', '--bool', 'core.ignorecase']);
  return { root, gitDir, ignoreCase: config.status === 0 && config.stdout.toString('utf8').trim() === 'true' };
}

/** The checkout's HEAD commit, or null (an unborn branch). */
export function headCommit(root: string): string | null {
  const run = runGitProcess(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return run.status === 0 ? run.stdout.toString('utf8').trim() : null;
}

function stateDirOf(gitDir: string): string {
  return join(gitDir, 'wave-scope');
}

function parseIdentity(text: string | undefined): CloneIdentity | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { id?: unknown; name?: unknown };
    if (isCloneId(parsed.id) && typeof parsed.name === 'string') return { id: parsed.id, name: parsed.name };
  } catch {
    // Unreadable: treated as absent below, and never overwritten (see readOrCreateCloneIdentity).
  }
  return undefined;
}

/** This clone's identity, or undefined when it has none yet. */
export function readCloneIdentity(gitDir: string): CloneIdentity | undefined {
  return parseIdentity(readTextIfExists(join(stateDirOf(gitDir), 'clone.json')));
}

/**
 * This clone's identity, made on first use: `c-` and 12 random hex digits, named `host:path`. The file is
 * created whole or not at all (written aside, fsynced, then hard-linked into place, which fails when it
 * exists), so two commands starting at once in one clone agree on one identity.
 */
export function readOrCreateCloneIdentity(repository: SyncRepository): CloneIdentity {
  const path = join(stateDirOf(repository.gitDir), 'clone.json');
  const existing = parseIdentity(readTextIfExists(path));
  if (existing !== undefined) return existing;
  if (readTextIfExists(path) !== undefined) {
    throw new Error(`${path} exists but is not a clone identity ({"id", "name"}); repair or remove it`);
  }
  mkdirSync(stateDirOf(repository.gitDir), { recursive: true });
  const identity: CloneIdentity = { id: `c-${randomBytes(6).toString('hex')}`, name: `${hostname()}:${repository.root}` };
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const descriptor = openSync(temporary, 'wx');
  try {
    writeSync(descriptor, `${JSON.stringify({ version: 1, ...identity, createdAt: new Date().toISOString() }, null, 2)}\n`);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  const made = parseIdentity(readTextIfExists(path));
  if (made === undefined) throw new Error(`${path} could not be created`);
  return made;
}

/** This clone's sync state (empty when there is none or it cannot be read). */
export function readLocalSyncState(gitDir: string): LocalSyncState {
  return parseLocalSyncState(readTextIfExists(join(stateDirOf(gitDir), 'sync-state.json')));
}

/** Reads, changes and atomically rewrites the sync state; returns what was written. */
export function updateLocalSyncState(gitDir: string, change: (state: LocalSyncState) => LocalSyncState): LocalSyncState {
  const next = change(readLocalSyncState(gitDir) ?? emptyLocalSyncState());
  mkdirSync(stateDirOf(gitDir), { recursive: true });
  writeFileAtomic.sync(join(stateDirOf(gitDir), 'sync-state.json'), formatLocalSyncState(next), { fsync: true });
  return next;
}
