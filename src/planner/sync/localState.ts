// What a clone remembers about the plans in its state directories: which ones it published, which ones it
// synced from another clone, and the syncs in progress (one marker per state directory). `sync` uses it to
// tell a plan it may replace (one that is on the plan ref already) from one that only exists here and would
// be lost. It is kept in the git directory (`<git-dir>/wave-scope/sync-state.json`), where no agent writes
// (the write gate guards it) and no commit carries it. A plan is recognised by its digest, never by its file
// times.
import { createHash } from 'node:crypto';
import type { DeclaredRecord } from '../plan/declarationInput';
import type { WaveManifest } from '../plan/manifest';

/** Version of the sync-state document. */
export const LOCAL_SYNC_STATE_VERSION = 1;

/** How many known plans are remembered (the oldest are forgotten first). */
export const MAX_KNOWN_PLANS = 64;

/** How many state directories' syncs in progress are remembered (the oldest marked are forgotten first). */
export const MAX_SYNCS_IN_PROGRESS = 64;

/** A plan this clone knows to be on the plan ref. */
export interface KnownPlan {
  /** `published`: this clone published it; `synced`: it came from another clone. */
  source: 'published' | 'synced';
  /** The state directory, relative to the checkout's root (`.claude`). */
  stateDir: string;
  wave: number;
  /** The clone whose wave it is. */
  clone: string;
  /** planDigest of the manifest and declaration (see planDigest). */
  planDigest: string;
  /** declarationDigest of the declaration alone. */
  declarationDigest: string;
  /** The plan commit it was published in or synced from. */
  commit: string;
  /** ISO 8601. */
  at: string;
}

/**
 * A state directory a sync is writing into right now. A sync killed half-way leaves it here, so the next
 * sync into the same state directory may finish the job: it may then replace what this sync found there
 * (`previousDigest`, already judged safe to replace) or what this sync writes on the way (its own plan, or
 * the skeleton manifest the chain writes first), and nothing else, so a plan written there after the crash
 * is still protected. Each state directory has a marker of its own: a sync into another one neither
 * replaces nor removes it.
 */
export interface SyncInProgress {
  /** The state directory, relative to the checkout's root (`.claude`): the marker's key. */
  stateDir: string;
  wave: number;
  clone: string;
  /** planDigest of the plan being written. */
  planDigest: string;
  /** planDigest of the manifest's plan found before the first write, or null when there was none. */
  previousDigest: string | null;
  /** declarationDigest of the incoming wave's declaration found before the first write, or null. */
  previousDeclarationDigest: string | null;
  at: string;
}

export interface LocalSyncState {
  version: typeof LOCAL_SYNC_STATE_VERSION;
  known: KnownPlan[];
  /** The syncs in progress, at most one per state directory, the most recently marked last. */
  inProgress: SyncInProgress[];
  /** When each remote's plan ref was last fetched here, and the commit it pointed at. */
  fetched: Record<string, { at: string; commit: string | null }>;
}

export function emptyLocalSyncState(): LocalSyncState {
  return { version: LOCAL_SYNC_STATE_VERSION, known: [], inProgress: [], fetched: {} };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses the sync-state file. Anything unusable is read as empty: the state only ever *permits* a
 * replacement, so forgetting it makes `sync` more careful, never less.
 */
export function parseLocalSyncState(text: string | undefined): LocalSyncState {
  const state = emptyLocalSyncState();
  if (text === undefined) return state;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return state;
  }
  if (!isRecord(parsed) || parsed.version !== LOCAL_SYNC_STATE_VERSION) return state;
  if (Array.isArray(parsed.known)) {
    for (const item of parsed.known) {
      if (!isRecord(item)) continue;
      const { source, stateDir, wave, clone, planDigest, declarationDigest, commit, at } = item;
      if ((source !== 'published' && source !== 'synced') || typeof stateDir !== 'string' || typeof wave !== 'number') continue;
      if (typeof clone !== 'string' || typeof planDigest !== 'string' || typeof declarationDigest !== 'string') continue;
      if (typeof commit !== 'string' || typeof at !== 'string') continue;
      state.known.push({ source, stateDir, wave, clone, planDigest, declarationDigest, commit, at });
    }
  }
  // A list, one marker per state directory; the previous version wrote one marker, or null, for all of them,
  // which is read as the marker of the state directory it names. (That version reads a list as no marker at
  // all: more careful, never less.)
  const progress = parsed.inProgress;
  for (const marker of Array.isArray(progress) ? progress : [progress]) {
    const read = parseSyncInProgress(marker);
    if (read !== undefined) state.inProgress = markSyncInProgress(state, read).inProgress;
  }
  if (isRecord(parsed.fetched)) {
    for (const [remote, value] of Object.entries(parsed.fetched)) {
      if (isRecord(value) && typeof value.at === 'string' && (value.commit === null || typeof value.commit === 'string')) {
        state.fetched[remote] = { at: value.at, commit: value.commit };
      }
    }
  }
  return state;
}

function parseSyncInProgress(value: unknown): SyncInProgress | undefined {
  if (
    !isRecord(value) ||
    typeof value.stateDir !== 'string' ||
    typeof value.wave !== 'number' ||
    typeof value.clone !== 'string' ||
    typeof value.planDigest !== 'string' ||
    (value.previousDigest !== null && typeof value.previousDigest !== 'string') ||
    (value.previousDeclarationDigest !== null && typeof value.previousDeclarationDigest !== 'string') ||
    typeof value.at !== 'string'
  ) {
    return undefined;
  }
  const { stateDir, wave, clone, planDigest, previousDigest, previousDeclarationDigest, at } = value;
  return { stateDir, wave, clone, planDigest, previousDigest, previousDeclarationDigest, at };
}

export function formatLocalSyncState(state: LocalSyncState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

/** The state with `plan` remembered (replacing an entry for the same state dir, wave and digest), capped at MAX_KNOWN_PLANS. */
export function rememberPlan(state: LocalSyncState, plan: KnownPlan): LocalSyncState {
  const others = state.known.filter(
    (known) => !(known.stateDir === plan.stateDir && known.wave === plan.wave && known.planDigest === plan.planDigest && known.source === plan.source),
  );
  return { ...state, known: [...others, plan].slice(-MAX_KNOWN_PLANS) };
}

/** The marker of a sync in progress into `stateDir` (a state directory's key), if there is one. */
export function syncInProgressIn(state: LocalSyncState, stateDir: string): SyncInProgress | undefined {
  return state.inProgress.find((marker) => marker.stateDir === stateDir);
}

/** The state with `marker` as the one sync in progress into its state directory (replacing any other there), capped at MAX_SYNCS_IN_PROGRESS. */
export function markSyncInProgress(state: LocalSyncState, marker: SyncInProgress): LocalSyncState {
  const others = state.inProgress.filter((other) => other.stateDir !== marker.stateDir);
  return { ...state, inProgress: [...others, marker].slice(-MAX_SYNCS_IN_PROGRESS) };
}

/** The state without a sync in progress into `stateDir`; the markers of other state directories are kept. */
export function clearSyncInProgress(state: LocalSyncState, stateDir: string): LocalSyncState {
  return { ...state, inProgress: state.inProgress.filter((marker) => marker.stateDir !== stateDir) };
}

function sha(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The digest of a declaration: its wave and records (ids and entries, in order). */
export function declarationDigest(wave: number, records: readonly DeclaredRecord[]): string {
  return sha(JSON.stringify({ wave, records: records.map((record) => ({ id: record.id, files: record.files })) }));
}

/**
 * The digest of a plan as it governs writes: what the manifest says (wave, role, enforcement,
 * allowedPaths, blockedCommands, gates) and the declaration it was computed from. The session binding is
 * left out: a published plan is bound to its coordinator, the same plan synced elsewhere is unbound.
 */
export function planDigest(manifest: WaveManifest, records: readonly DeclaredRecord[] | undefined): string {
  return sha(
    JSON.stringify({
      wave: manifest.wave,
      role: manifest.role,
      enforcement: manifest.enforcement,
      allowedPaths: manifest.allowedPaths,
      blockedCommands: manifest.blockedCommands,
      gates: manifest.gates ?? {},
      declaration: records === undefined ? null : declarationDigest(manifest.wave, records),
    }),
  );
}
