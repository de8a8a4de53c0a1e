// Writes prepared ahead of the safe chain, so that fsyncing them runs in parallel instead of one after
// another. The chain (writeWavePlan) makes each file durable before its rename: written one by one, a
// wave of 64 agents waits for 64 fsyncs in a row, the larger part of a sync's time on a real disk. Before
// the chain runs, `stageWrites` writes the files it is about to ask for into temporary files beside their
// targets and fsyncs them together on libuv's pool. When the chain then asks to write one of them with
// exactly the staged text, the staged file, already durable, is renamed into place: the same temporary
// file, fsync and rename as any write, the same confinement checks at the moment of the rename, the same
// order of renames and directory fsyncs, with the waiting done up front. A write the stage does not hold
// (other text, another path, a staged file that changed since) goes through the wrapped file system as
// usual, and `discard` removes whatever was staged and not used.
import { closeSync, constants, fchmodSync, fstatSync, fsync, lstatSync, openSync, readSync, renameSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensureRealParents, isReplaceableFile, layeredDeclarationFs } from './declarationFs';
import type { DeclarationFile, DeclarationFs } from '../planner/plan/declarationStore';

interface StagedFile {
  temporary: string;
  bytes: Buffer;
  descriptor: number;
}

/** A DeclarationFs that renames staged files into place; `used` lists the paths written that way, in order. */
export interface StagedDeclarationFs extends DeclarationFs {
  readonly used: readonly string[];
  /** Removes every staged file not used, and the directories staging made that are still empty. */
  discard(): void;
}

function fsyncAsync(descriptor: number): Promise<boolean> {
  return new Promise((settle) => fsync(descriptor, (error) => settle(error === null)));
}

/** The directories from `root` down to `path`'s parent that do not exist yet, outermost first. */
function missingParents(root: string, path: string): string[] {
  const missing: string[] = [];
  for (let directory = dirname(path); directory.length > root.length && directory.startsWith(root); directory = dirname(directory)) {
    try {
      lstatSync(directory);
      break;
    } catch {
      missing.unshift(directory);
    }
  }
  return missing;
}

/** Whether the staged file is still the one written (same file, same bytes): nothing swapped or changed it since. */
function isIntact(staged: StagedFile): boolean {
  try {
    const held = fstatSync(staged.descriptor);
    const named = lstatSync(staged.temporary);
    if (!named.isFile() || named.ino !== held.ino || named.dev !== held.dev || named.nlink !== 1 || held.size !== staged.bytes.length) return false;
    const read = Buffer.alloc(staged.bytes.length);
    let length = 0;
    while (length < read.length) {
      const count = readSync(staged.descriptor, read, length, read.length - length, length);
      if (count === 0) break;
      length += count;
    }
    return length === read.length && read.equals(staged.bytes);
  } catch {
    return false;
  }
}

/**
 * Stages `files` (paths inside `root`) for the chain about to run over `fs`, and returns the file system the
 * chain should write through. A file that cannot be staged (a link in the way, a disk error) is simply not
 * staged: its write then goes through `fs`, which refuses or fails it where the chain can report it.
 */
export async function stageWrites(fs: DeclarationFs, root: string, files: readonly DeclarationFile[]): Promise<StagedDeclarationFs> {
  root = resolve(root);
  const staged = new Map<string, StagedFile>();
  const createdDirectories: string[] = [];
  const pending: Array<{ path: string; file: StagedFile }> = [];
  for (const { path, text } of files) {
    const target = resolve(path);
    if (staged.has(target) || pending.some((entry) => entry.path === target)) continue;
    let descriptor: number | undefined;
    const temporary = `${target}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
      // Recorded before they are made, so a walk stopped half-way by a link still has its directories removed.
      createdDirectories.push(...missingParents(root, target).filter((directory) => !createdDirectories.includes(directory)));
      ensureRealParents(root, target, true);
      isReplaceableFile(target);
      descriptor = openSync(temporary, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o644);
      fchmodSync(descriptor, 0o644);
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(descriptor, bytes, offset);
      pending.push({ path: target, file: { temporary, bytes, descriptor } });
    } catch {
      if (descriptor !== undefined) {
        closeSync(descriptor);
        unlinkSync(temporary);
      }
    }
  }
  const durable = await Promise.all(pending.map(({ file }) => fsyncAsync(file.descriptor)));
  pending.forEach(({ path, file }, index) => {
    if (durable[index]) staged.set(path, file);
    else drop(file);
  });

  const used: string[] = [];
  const layered = layeredDeclarationFs(fs, (path, text) => {
    const target = resolve(path);
    const file = staged.get(target);
    if (file === undefined || !file.bytes.equals(Buffer.from(text, 'utf8'))) return 'pass';
    staged.delete(target);
    // The checks every write makes, at the moment of this one: no link on the way, nothing but a file replaced.
    try {
      ensureRealParents(root, target, true);
      isReplaceableFile(target);
    } catch (error) {
      drop(file);
      throw error;
    }
    if (!isIntact(file)) {
      drop(file);
      return 'pass';
    }
    closeSync(file.descriptor);
    try {
      renameSync(file.temporary, target);
    } catch (error) {
      unlinkSync(file.temporary);
      throw error;
    }
    used.push(path);
    return 'done';
  });
  return {
    ...layered,
    used,
    discard() {
      for (const file of staged.values()) drop(file);
      staged.clear();
      for (const directory of [...createdDirectories].reverse()) {
        try {
          rmdirSync(directory);
        } catch {
          // Not empty (the chain wrote into it) or already gone: it stays as it is.
        }
      }
    },
  };
}

function drop(file: StagedFile): void {
  try {
    closeSync(file.descriptor);
  } catch {
    // Already closed.
  }
  try {
    unlinkSync(file.temporary);
  } catch {
    // Already gone.
  }
}
