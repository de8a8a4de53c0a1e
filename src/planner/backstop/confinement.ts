// Confinement of a turn by the kernel (`wave-scope run --confine`, Linux, bubblewrap): the command
// sees the whole file system read-only, except what the agent's scope names, the temp and cache
// directories a command needs, and the two `.orchestrator/` directories the hooks write. A write
// anywhere else fails with EROFS before it happens; the backstop still judges every change after the
// turn, and catches what confinement lets through (see `planConfinement` for what that is).
//
// This module only plans: which paths become writable and why, which stay read-only inside them, and
// the bubblewrap arguments. src/node/turnProcess.ts runs it.
import { parseScopeEntry } from '../scope/scopeEntry';
import { isWithin } from '../enforce/writeTarget';
import { ORCHESTRATOR_DIR_NAME } from '../plan/stateDirNames';

/** What the planner may ask of the file system (canonical paths; links followed). */
export interface ConfinementFs {
  /** `file`, `dir`, `other` (a FIFO, a device, a socket: never granted), or undefined when nothing is there. */
  kind(path: string): 'file' | 'dir' | 'other' | undefined;
  /** The canonical path of an existing entry (every link followed), or undefined. */
  realpath(path: string): string | undefined;
}

/** Why a path is writable inside the sandbox. */
export type WritableReason = 'scope' | 'temp' | 'cache' | 'orchestrator' | 'requested';

export interface WritablePath {
  readonly path: string;
  readonly reason: WritableReason;
  /** The scope entry that asked for it (reason `scope`). */
  readonly entry?: string;
}

/** Something the plan could not grant as the scope spells it, for the person starting the turn. */
export type ConfinementNote =
  /** A root-level glob: the root stays read-only; only the existing files it names are writable. */
  | { readonly kind: 'root-glob'; readonly entry: string; readonly files: number }
  /** The entry names a file that does not exist, in a directory that does not exist (or is the root). */
  | { readonly kind: 'cannot-create'; readonly entry: string; readonly path: string }
  /** The entry (or a link in it) leads outside the repository: not made writable. */
  | { readonly kind: 'outside-repository'; readonly entry: string; readonly path: string }
  /** The entry names a directory that does not exist; its parent was made writable instead. */
  | { readonly kind: 'parent-granted'; readonly entry: string; readonly path: string }
  /** A temp or cache directory inside the repository is not made writable (it would widen the scope). */
  | { readonly kind: 'inside-repository'; readonly path: string }
  /**
   * A symbolic link on the way from the repository to what the entry names (`path`, leading to `target`),
   * or its target is control state (`.git`, the plan): not made writable. A link a turn left (`src/gen ->
   * ../.git/refs/heads`) would otherwise make what it leads to writable in the next confined turn.
   */
  | { readonly kind: 'linked'; readonly entry: string; readonly path: string; readonly target: string }
  /**
   * `.orchestrator/metrics` or `.orchestrator/backstop/hooks` is not a real directory reached without links
   * (`target`: where it leads): the sandbox cannot be built (it would bind what the link leads to, `/`
   * say, writable), and `run` stops.
   */
  | { readonly kind: 'linked-orchestrator'; readonly path: string; readonly target: string };

export interface ConfinementPlan {
  /** Bound read-write: first the temp, cache and requested paths, then (after `roots`) scope and orchestrator paths. */
  readonly writable: readonly WritablePath[];
  /**
   * The repository roots, bound read-only again between the two: a repository inside a writable temp
   * or cache directory (a checkout under /tmp) stays read-only except for its own grants.
   */
  readonly roots: readonly string[];
  /** Bound read-only again after the writable binds (control state inside a writable directory). */
  readonly protected: readonly string[];
  readonly notes: readonly ConfinementNote[];
}

export interface ConfinementRequest {
  /** Canonical absolute top level of the work tree. */
  readonly writeRoot: string;
  /** Canonical absolute coordinator checkout (equals `writeRoot` unless a linked worktree). */
  readonly manifestRoot: string;
  /** The agent's scope entries, test siblings included (normalised spellings). */
  readonly entries: readonly string[];
  /** Files (repository-relative) a root-level glob entry names; the snapshot's tracked and untracked files. */
  readonly filesMatching: (entry: string) => readonly string[];
  /** Temp directories the command needs (TMPDIR, /tmp), absolute. */
  readonly tempDirs: readonly string[];
  /** Cache directories (XDG_CACHE_HOME or ~/.cache), absolute. */
  readonly cacheDirs: readonly string[];
  /** Extra paths asked for with `--writable` (outside the repository), absolute. */
  readonly requested: readonly string[];
  /** Canonical absolute control paths (never writable, whatever the scope says). */
  readonly controlPaths: readonly string[];
  readonly fs: ConfinementFs;
}

function join(root: string, relative: string): string {
  return relative === '' ? root : root === '/' ? `/${relative}` : `${root}/${relative}`;
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** The literal directory (or file) of each brace alternative: where a bind can go. */
function literalTargets(entry: string): Array<{ relative: string; plainFile: boolean }> {
  const parsed = parseScopeEntry(entry);
  return parsed.alternatives.map((alternative) => {
    const literal: string[] = [];
    for (const segment of alternative) {
      if (segment.kind !== 'pattern' || segment.literal === undefined) break;
      literal.push(segment.literal);
    }
    return { relative: literal.join('/'), plainFile: literal.length === alternative.length };
  });
}

/**
 * Plans the sandbox of one turn:
 *
 * - a plain entry naming an existing file: that file (a tool that replaces a file by renaming a
 *   temporary file beside it, like `sed -i`, cannot do so: grant the directory, `dir/`, for that);
 * - a directory entry (`src/`) or a glob: the longest literal directory of each brace alternative
 *   (`src/**\/*.ts` → `src/`); a glob whose literal directory is the root makes only the existing
 *   files it names writable (the root itself never is);
 * - a file or directory that does not exist yet: the nearest existing directory on its way, below the
 *   root (so `src/new/a.ts` grants `src/` when only that exists); when that would be the root, the
 *   path cannot be created under confinement, and a note says so;
 * - every path is resolved and must stay inside the repository, reached without a link on the way and
 *   outside control state (a link a turn left must not widen the next turn: such an entry is noted and
 *   not granted; a linked `.orchestrator/` directory makes the plan unusable, see `linked-orchestrator`);
 * - the temp and cache directories, `--writable` paths, and `.orchestrator/metrics` and
 *   `.orchestrator/backstop/hooks` (hook telemetry and hook state) of both roots;
 * - control state and `.git` are bound read-only again where a writable directory contains them.
 */
export function planConfinement(request: ConfinementRequest): ConfinementPlan {
  const { fs, writeRoot } = request;
  const writable: WritablePath[] = [];
  const notes: ConfinementNote[] = [];
  const seen = new Set<string>();
  const add = (path: string, reason: WritableReason, entry?: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    writable.push({ path, reason, ...(entry !== undefined ? { entry } : {}) });
  };
  const inside = (path: string) => isWithin(writeRoot, path) && path !== writeRoot;
  const controlPaths = [...new Set(request.controlPaths)];
  /**
   * Whether `real`, the canonical path of `spelled`, may be granted as itself: reached with no link on
   * the way (the two are the same path) and not control state. Notes why not.
   */
  const grantable = (spelled: string, real: string, entry: string): boolean => {
    if (real === spelled && !controlPaths.some((control) => isWithin(control, real))) return true;
    notes.push({ kind: 'linked', entry, path: spelled, target: real });
    return false;
  };

  for (const entry of request.entries) {
    let targets: Array<{ relative: string; plainFile: boolean }>;
    try {
      targets = literalTargets(entry);
    } catch {
      continue;
    }
    for (const target of targets) {
      if (target.relative === '') {
        const files = request.filesMatching(entry);
        for (const file of files) {
          const spelled = join(writeRoot, file);
          const real = fs.realpath(spelled);
          if (real !== undefined && inside(real) && grantable(spelled, real, entry) && fs.kind(real) === 'file') add(real, 'scope', entry);
        }
        notes.push({ kind: 'root-glob', entry, files: files.length });
        continue;
      }
      const spelled = join(writeRoot, target.relative);
      const real = fs.realpath(spelled);
      if (real !== undefined) {
        if (!inside(real)) {
          notes.push({ kind: 'outside-repository', entry, path: real });
          continue;
        }
        if (!grantable(spelled, real, entry)) continue;
        add(real, 'scope', entry);
        continue;
      }
      // Nothing there yet: the nearest existing directory on the way, never the root itself.
      let dir = parentOf(spelled);
      while (dir !== writeRoot && isWithin(writeRoot, dir) && fs.realpath(dir) === undefined) dir = parentOf(dir);
      const realDir = dir === writeRoot || !isWithin(writeRoot, dir) ? undefined : fs.realpath(dir);
      const usable = realDir !== undefined && inside(realDir) && fs.kind(realDir) === 'dir';
      if (!usable) {
        notes.push({ kind: 'cannot-create', entry, path: spelled });
        continue;
      }
      if (!grantable(dir, realDir, entry)) continue;
      notes.push({ kind: 'parent-granted', entry, path: realDir });
      add(realDir, 'scope', entry);
    }
  }

  const outsideOnly = (paths: readonly string[], reason: WritableReason) => {
    for (const path of paths) {
      const real = fs.realpath(path);
      if (real === undefined) continue;
      if (isWithin(writeRoot, real) || isWithin(request.manifestRoot, real)) {
        notes.push({ kind: 'inside-repository', path: real });
        continue;
      }
      add(real, reason);
    }
  };
  outsideOnly(request.tempDirs, 'temp');
  outsideOnly(request.cacheDirs, 'cache');
  outsideOnly(request.requested, 'requested');
  for (const root of new Set([writeRoot, request.manifestRoot])) {
    for (const dir of ['metrics', 'backstop/hooks']) {
      const spelled = join(root, `${ORCHESTRATOR_DIR_NAME}/${dir}`);
      const real = fs.realpath(spelled);
      if (real === undefined) continue;
      // Bound only as the real directory it is spelled as: `.orchestrator/backstop/hooks -> /` would make
      // the whole file system writable (found by red-team review, 2026-12-06).
      if (real !== spelled || fs.kind(real) !== 'dir') notes.push({ kind: 'linked-orchestrator', path: spelled, target: real });
      else add(real, 'orchestrator');
    }
  }

  // Control state (and `.git`, which the control paths name) stays read-only inside writable directories.
  const protectedPaths: string[] = [];
  for (const control of controlPaths) {
    if (fs.realpath(control) !== control) continue;
    if (writable.some((grant) => isWithin(grant.path, control))) protectedPaths.push(control);
  }
  return { writable, roots: [...new Set([writeRoot, request.manifestRoot])], protected: protectedPaths, notes };
}

/** The bubblewrap arguments of a plan, up to the command (the caller appends `--`, the command and its arguments). */
export function bubblewrapArguments(plan: ConfinementPlan, options: { cwd: string; infoFd?: number }): string[] {
  const args = [
    // Everything read-only; a fresh /dev and /proc of the sandbox's own.
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
  ];
  // Later binds cover earlier ones: outside grants, then the repositories read-only, then their grants.
  const outside = plan.writable.filter((grant) => grant.reason === 'temp' || grant.reason === 'cache' || grant.reason === 'requested');
  const inside = plan.writable.filter((grant) => !outside.includes(grant));
  for (const grant of outside) args.push('--bind', grant.path, grant.path);
  for (const root of plan.roots) args.push('--ro-bind', root, root);
  for (const grant of inside) args.push('--bind', grant.path, grant.path);
  for (const path of plan.protected) args.push('--ro-bind', path, path);
  args.push(
    // No capability survives into the sandbox, even for root: without CAP_SYS_ADMIN nothing inside can
    // unmount or remount the read-only binds.
    '--cap-drop', 'ALL',
    // Its own process namespace: no process of the turn outlives it (or the supervisor).
    '--unshare-pid',
    '--die-with-parent',
    '--chdir', options.cwd,
  );
  if (options.infoFd !== undefined) args.push('--info-fd', String(options.infoFd));
  return args;
}
