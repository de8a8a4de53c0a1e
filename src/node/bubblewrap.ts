// Finding bubblewrap and proving it can build a sandbox here, before a turn relies on it. A turn
// asked to run confined never runs unconfined: when this fails, `run --confine` stops with the reason.
import { spawnSync } from 'node:child_process';
import { endianness } from 'node:os';
import { terminalFilter } from '../planner/backstop/terminalFilter';
import { findExecutable } from './turnProcess';

export type BubblewrapProbe =
  | { readonly ok: true; readonly executable: string; readonly seccomp: Uint8Array }
  | { readonly ok: false; readonly reason: 'not-linux' | 'not-installed' | 'not-working'; readonly detail: string };

/** The arguments of the probe: the same kind of sandbox a turn gets, its seccomp program read from stdin, running `true`. */
const PROBE_ARGS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--cap-drop', 'ALL', '--unshare-pid', '--die-with-parent', '--seccomp', '0', '--', 'true'];

/** Finds `bwrap` (WAVE_SCOPE_BWRAP, then PATH, then /usr/bin/bwrap) and runs one empty sandbox with it. */
export function probeBubblewrap(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): BubblewrapProbe {
  if (platform !== 'linux') return { ok: false, reason: 'not-linux', detail: `this system is ${platform}` };
  const seccomp = terminalFilter(process.arch, endianness() === 'LE');
  if (seccomp === undefined) return { ok: false, reason: 'not-working', detail: `no seccomp filter against terminal injection is known for ${process.arch} (${endianness()})` };
  const explicit = env.WAVE_SCOPE_BWRAP?.trim();
  const executable = explicit !== undefined && explicit !== '' ? findExecutable(explicit, env) : (findExecutable('bwrap', env) ?? findExecutable('/usr/bin/bwrap', env));
  if (executable === undefined) {
    return { ok: false, reason: 'not-installed', detail: explicit !== undefined && explicit !== '' ? `WAVE_SCOPE_BWRAP=${explicit} is not an executable` : 'no bwrap on PATH or in /usr/bin' };
  }
  const run = spawnSync(executable, PROBE_ARGS, { encoding: 'utf8', timeout: 20_000, input: seccomp, stdio: ['pipe', 'ignore', 'pipe'] });
  if (run.error !== undefined) return { ok: false, reason: 'not-working', detail: run.error.message };
  if (run.status !== 0) {
    return { ok: false, reason: 'not-working', detail: `${executable} exited ${run.status ?? run.signal}: ${(run.stderr ?? '').trim() || 'no message'}` };
  }
  return { ok: true, executable, seccomp };
}
