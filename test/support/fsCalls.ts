// What node:fs is asked to make durable, move or remove while a test runs, in order: the fsyncs (synchronous
// and callback), renames and unlinks, each by the path it touches (a rename through a held directory by that
// directory's path). Every call still goes through to the real one; the durability tests of the writers read
// the order from here.
// The module object itself (not a namespace copy), so the spies see every call the code under test makes.
import fs from 'node:fs';

/** How a path is shown in the record: the default shows it as it is. */
export type PathLabel = (path: string) => string;

/**
 * The path a write reaches: one through a held directory (Linux names it /proc/self/fd/<n>/<name>, see
 * openRealDirectory) is shown by the directory's own path, read while the descriptor is still open.
 */
function reachedPath(path: string): string {
  const held = /^\/proc\/self\/fd\/(\d+)\/([^/]+)$/.exec(path);
  if (held === null) return path;
  return `${fs.readlinkSync(`/proc/self/fd/${held[1]}`)}/${held[2]}`;
}

function install(label: PathLabel): { calls: string[]; restore(): void } {
  const calls: string[] = [];
  const descriptors = new Map<number, string>();
  const real = { openSync: fs.openSync, fsyncSync: fs.fsyncSync, fsync: fs.fsync, renameSync: fs.renameSync, unlinkSync: fs.unlinkSync };
  const mutable = fs as unknown as Record<keyof typeof real, unknown>;
  const named = (fd: number) => label(descriptors.get(fd) ?? String(fd));
  mutable.openSync = (path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...args: unknown[]) => number)(path, ...rest);
    descriptors.set(fd, String(path));
    return fd;
  };
  mutable.fsyncSync = (fd: number) => {
    calls.push(`fsync ${named(fd)}`);
    real.fsyncSync(fd);
  };
  mutable.fsync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    real.fsync(fd, (error) => {
      calls.push(`fsync ${named(fd)}`);
      done(error);
    });
  };
  mutable.renameSync = (from: fs.PathLike, to: fs.PathLike) => {
    calls.push(`rename ${label(reachedPath(String(to)))}`);
    real.renameSync(from, to);
  };
  mutable.unlinkSync = (path: fs.PathLike) => {
    calls.push(`unlink ${label(String(path))}`);
    real.unlinkSync(path);
  };
  return { calls, restore: () => Object.assign(mutable, real) };
}

/** The calls `run` made. */
export function observeFs(run: () => void, label: PathLabel = (path) => path): string[] {
  const recorder = install(label);
  try {
    run();
  } finally {
    recorder.restore();
  }
  return recorder.calls;
}

/** The calls `run` made until its promise settled, and what it settled to. */
export async function observeFsAsync<T>(run: () => Promise<T>, label: PathLabel = (path) => path): Promise<{ result: T; calls: string[] }> {
  const recorder = install(label);
  try {
    return { result: await run(), calls: recorder.calls };
  } finally {
    recorder.restore();
  }
}
