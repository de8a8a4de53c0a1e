// The git pre-commit guard's decision: every staged path (both sides of a rename or copy, deletions
// and submodule bumps included) must lie in the active wave's `allowedPaths`, or in an earlier wave of
// this session (reference limit 13: a wave sidecar counts only when it is not older than the session
// start; with no session start none counts). Pure: git's output, the manifest and the sidecars come
// in as data. The session start is what sessionRecord.ts lets the guard believe: never the committing
// shell's word alone.
import { foldCase } from '../scope/scopeEntry';
import { compileGrants, provenIgnoringCase } from './writeDecision';
import type { ManifestState } from './writeDecision';

/** One entry of `git diff --cached --name-status -z`. */
export interface StagedChange {
  /** Git's status letter(s), e.g. `M`, `A`, `D`, `R100`, `C075`. */
  readonly status: string;
  /** The paths the change touches: one, or source and destination for a rename or copy. */
  readonly paths: readonly string[];
}

/** Parses NUL-separated `git diff --cached --name-status -z` output. Throws on a truncated record. */
export function parseNameStatusZ(output: string): StagedChange[] {
  const fields = output.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  const changes: StagedChange[] = [];
  let index = 0;
  while (index < fields.length) {
    const status = fields[index] ?? '';
    const pathCount = status.startsWith('R') || status.startsWith('C') ? 2 : 1;
    const paths = fields.slice(index + 1, index + 1 + pathCount);
    if (status === '' || paths.length !== pathCount) {
      throw new Error(`git diff --name-status output ends in the middle of a record (status "${status}").`);
    }
    changes.push({ status, paths });
    index += 1 + pathCount;
  }
  return changes;
}

/** An earlier wave's aggregate sidecar, as read from `<state-dir>/filescopes/wave-<k>.scopes.json`. */
export interface EarlierWaveSidecar {
  readonly wave: number;
  readonly path: string;
  /** The sidecar's modification time (ms since the epoch). */
  readonly mtimeMs: number;
  /** The parsed JSON (an array of `{id, files}` records); anything else counts for nothing. */
  readonly records: unknown;
}

export type StagedVerdict = 'allowed' | 'earlier-wave' | 'control-state' | 'blocked';

export interface StagedPathResult {
  readonly path: string;
  readonly status: string;
  readonly verdict: StagedVerdict;
  /** The earlier wave that declared the path (`earlier-wave`). */
  readonly wave?: number;
}

export type CommitGuardResult =
  | { readonly kind: 'stand-down'; readonly because: 'no-manifest' | 'foreign-session' | 'enforcement-off' }
  | { readonly kind: 'invalid-manifest'; readonly manifestPath: string; readonly problems: readonly string[] }
  | {
      readonly kind: 'checked';
      /** False when some path is blocked and enforcement is `strict`. */
      readonly ok: boolean;
      readonly enforcement: 'strict' | 'warn';
      readonly wave: number;
      readonly manifestPath: string;
      readonly results: readonly StagedPathResult[];
    };

export interface CommitGuardInput {
  readonly changes: readonly StagedChange[];
  readonly manifest: ManifestState;
  readonly sidecars: readonly EarlierWaveSidecar[];
  /** The session's start (ms since the epoch); without one no earlier wave counts. */
  readonly sessionStartMs?: number;
  /** Repository-relative prefixes of the control state (`.claude/wave-scope.json`, `.claude/filescopes/`). */
  readonly controlPaths: readonly string[];
  readonly repoRoot: string;
  readonly ignoreCase?: boolean;
}

/** Files an earlier wave's sidecar declared, peer-session records excluded. Malformed input (a record without an id too) declares nothing. */
export function declaredFiles(records: unknown): string[] {
  if (!Array.isArray(records)) return [];
  const files: string[] = [];
  for (const record of records) {
    if (typeof record !== 'object' || record === null) continue;
    const { id, files: entries } = record as { id?: unknown; files?: unknown };
    if (typeof id !== 'string' || id.startsWith('peer-session-')) continue;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) if (typeof entry === 'string') files.push(entry);
  }
  return files;
}

function isControl(path: string, controlPaths: readonly string[], ignoreCase?: boolean): boolean {
  const p = ignoreCase ? foldCase(path) : path;
  return controlPaths.some((raw) => {
    const control = ignoreCase ? foldCase(raw) : raw;
    return control.endsWith('/') ? p.startsWith(control) : p === control;
  });
}

/** Decides one commit. */
export function checkStagedChanges(input: CommitGuardInput): CommitGuardResult {
  const { manifest } = input;
  if (manifest.kind === 'missing') return { kind: 'stand-down', because: 'no-manifest' };
  if (manifest.kind === 'invalid') return { kind: 'invalid-manifest', manifestPath: manifest.path, problems: manifest.problems };
  if (manifest.session === 'foreign') return { kind: 'stand-down', because: 'foreign-session' };
  if (manifest.manifest.enforcement === 'off') return { kind: 'stand-down', because: 'enforcement-off' };

  const options = { writeRoot: input.repoRoot, ignoreCase: input.ignoreCase === true && provenIgnoringCase(manifest) };
  const active = compileGrants(manifest.manifest.allowedPaths, options);
  const earlier = input.sidecars
    .filter((sidecar) => sidecar.wave < manifest.manifest.wave)
    .filter((sidecar) => input.sessionStartMs !== undefined && sidecar.mtimeMs >= input.sessionStartMs)
    .sort((a, b) => a.wave - b.wave)
    .map((sidecar) => ({ wave: sidecar.wave, grants: compileGrants(declaredFiles(sidecar.records), options) }));

  const results: StagedPathResult[] = [];
  for (const change of input.changes) {
    for (const path of change.paths) {
      const target = { kind: 'inside' as const, raw: path, absolute: `${input.repoRoot}/${path}`, relative: path.normalize('NFC') };
      if (isControl(target.relative, input.controlPaths, input.ignoreCase)) {
        results.push({ path, status: change.status, verdict: 'control-state' });
      } else if (active.covers(target)) {
        results.push({ path, status: change.status, verdict: 'allowed' });
      } else {
        const wave = earlier.find((candidate) => candidate.grants.covers(target))?.wave;
        results.push(
          wave === undefined
            ? { path, status: change.status, verdict: 'blocked' }
            : { path, status: change.status, verdict: 'earlier-wave', wave },
        );
      }
    }
  }
  const enforcement = manifest.manifest.enforcement;
  const blocked = results.some((result) => result.verdict === 'blocked');
  return {
    kind: 'checked',
    ok: !blocked || enforcement === 'warn',
    enforcement,
    wave: manifest.manifest.wave,
    manifestPath: manifest.path,
    results,
  };
}

/** Reads `WAVE_SCOPE_SESSION_START` (milliseconds since the epoch, or an ISO 8601 time); undefined when unset or unreadable. */
export function parseSessionStart(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  const number = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(number) ? number : undefined;
}
