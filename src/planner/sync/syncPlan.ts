// Bringing a published wave into this clone's state directory, so the local hooks (write gate, commit
// guard, backstop) enforce a plan made elsewhere. The wave is written through the one safe chain
// (prepareWavePlan, commitWavePlan: validate, prove disjoint, materialize, re-prove on disk, union, manifest), never copied
// file by file, and it is written unbound (no session id): every session of this clone is held to it.
// Before anything is written, the state directory is checked for a plan that is not on the plan ref and
// would be lost; such a plan is refused, with the reason.
import { relative, sep } from 'node:path';
import { agentIdOfFileName, manifestPath, waveOfSidecarName } from '../plan/declarationPaths';
import { declarationFiles, declarationWritePaths, readOnceView, readWaveDeclaration } from '../plan/declarationStore';
import type { DeclarationFile, DeclarationFs, WaveDeclaration } from '../plan/declarationStore';
import { commitWavePlan, manifestSkeletonText, plannedManifestText, prepareWavePlan } from '../plan/planWriter';
import type { ManifestSettings, PreparedWavePlan, WavePlanFailure, WavePlanRequest, WavePlanResult } from '../plan/planWriter';
import type { WaveManifest } from '../plan/manifest';
import { manifestSessionIds } from '../plan/sessionBinding';
import type { SessionVerdict } from '../plan/sessionBinding';
import { inspectStateDir } from '../plan/stateDir';
import type { StateDirResolution } from '../plan/stateDir';
import { isClaimLive } from './claims';
import type { Claim } from './claims';
import { declarationDigest, planDigest, syncInProgressIn } from './localState';
import type { KnownPlan, LocalSyncState } from './localState';
import type { DecodedPlan, PublishedWave, WaveKey } from './planRef';

/** Which published wave to bring in; without either, the one wave another clone claims. */
export interface SyncSelection {
  wave?: number;
  clone?: string;
}

/** A published wave that can be synced: its manifest and records are usable. */
export interface SyncableWave extends PublishedWave {
  manifest: NonNullable<PublishedWave['manifest']>;
  records: NonNullable<PublishedWave['records']>;
  /** Its live claim, or null when nobody claims it any more. */
  claim: Claim | null;
}

export type SelectionResult =
  | { ok: true; wave: SyncableWave }
  /** Nothing matches (`ownClaims`: this clone's own live claims, which are never synced into itself). */
  | { ok: false; reason: 'none'; ownClaims: Claim[] }
  /** Several match: `candidates` lists them; pass --wave and --clone. */
  | { ok: false; reason: 'ambiguous'; candidates: Array<{ clone: string; cloneName: string; wave: number; claim: Claim | null }> }
  | { ok: false; reason: 'own-clone' }
  | { ok: false; reason: 'unusable'; clone: string; wave: number; problems: string[] };

/** The live claim on the published wave `key`, or null. */
function liveClaimOn(claims: readonly Claim[], key: WaveKey, now: number): Claim | null {
  return claims.find((claim) => claim.clone === key.clone && claim.wave === key.wave && isClaimLive(claim, now)) ?? null;
}

/**
 * Whether a sync with `selection` may bring in the published wave `key`: another clone's wave, matching what
 * was named, or, when nothing was named, claimed now (`claims`: the plan's claims). selectWaveToSync picks
 * among exactly these; a sync decodes only these (decodePlan's `wanted`).
 */
export function isSyncCandidate(key: WaveKey, claims: readonly Claim[], selection: SyncSelection, ownClone: string, now: number): boolean {
  if (key.clone === ownClone) return false;
  if (selection.clone !== undefined && key.clone !== selection.clone) return false;
  if (selection.wave !== undefined && key.wave !== selection.wave) return false;
  const explicit = selection.clone !== undefined || selection.wave !== undefined;
  return explicit || liveClaimOn(claims, key, now) !== null;
}

/** Picks the published wave a sync brings in. */
export function selectWaveToSync(plan: DecodedPlan, selection: SyncSelection, ownClone: string, now: number): SelectionResult {
  if (selection.clone === ownClone) return { ok: false, reason: 'own-clone' };
  const liveClaim = (wave: PublishedWave) => liveClaimOn(plan.claims, wave, now);
  const candidates = plan.waves.filter((wave) => isSyncCandidate(wave, plan.claims, selection, ownClone, now));
  if (candidates.length === 0) {
    return { ok: false, reason: 'none', ownClaims: plan.claims.filter((claim) => claim.clone === ownClone && isClaimLive(claim, now)) };
  }
  if (candidates.length > 1) {
    return {
      ok: false,
      reason: 'ambiguous',
      candidates: candidates.map((wave) => ({ clone: wave.clone, cloneName: wave.info?.cloneName ?? wave.clone, wave: wave.wave, claim: liveClaim(wave) })),
    };
  }
  const wave = candidates[0] as PublishedWave;
  if (wave.manifest === undefined || wave.records === undefined) return { ok: false, reason: 'unusable', clone: wave.clone, wave: wave.wave, problems: wave.problems };
  return { ok: true, wave: { ...wave, manifest: wave.manifest, records: wave.records, claim: liveClaim(wave) } };
}

/** Why the state directory's current content may not be replaced. */
export type LocalPlanRisk =
  /** A manifest exists but cannot be used: nobody can tell what it held. */
  | { reason: 'unusable-manifest'; message: string }
  /** The manifest's plan is neither the incoming one nor one this clone published or synced. */
  | { reason: 'unpublished-plan'; wave: number; session: SessionVerdict }
  /** The incoming wave's declaration exists here, differs, and is not on the plan ref. */
  | { reason: 'unpublished-declaration'; wave: number }
  /** The incoming wave's declaration exists here but is invalid or inconsistent (edited by hand?). */
  | { reason: 'damaged-declaration'; wave: number; problems: string[] };

function repoRelative(repoRoot: string, path: string): string {
  const rel = relative(repoRoot, path);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

/**
 * A state directory as the checks before a sync of one wave read it: its manifest, the declaration of the
 * wave its manifest names and of the wave coming in (both read at once, so that everything the checks look
 * at is read before the sync prepares any file), and of any other wave asked for later; each file read
 * once (readOnceView) and each parsed once, however many checks ask: every check decides on one reading.
 * Without an incoming wave (sync reads the state directory while git fetches, before it knows which wave
 * comes in), the declaration of the manifest's wave is read at once, and any other when it is asked for.
 */
export interface StateDirReading {
  readonly stateDir: string;
  /** The manifest there (its session verdict judged against the `ownIds` it was read with). */
  readonly current: StateDirResolution;
  /** Whether that manifest is valid and names no session (whatever `ownIds` were). */
  readonly unbound: boolean;
  /** The declaration of `wave` there. */
  declaration(wave: number): WaveDeclaration;
  /**
   * Whether every file and directory this reading took (read so far) still reads the same through `files`:
   * nothing another command wrote since can then be lost by a write decided on this reading. A listing is
   * compared by the files a reader takes from it (agent files, aggregates), a missing directory as an empty
   * one: the temporary files and the directories a writer stages are none of them.
   */
  holdsStill(files: DeclarationFs): boolean;
}

export function readStateDir(
  stateDir: string,
  incomingWave: number | undefined,
  ownIds: ReadonlySet<string>,
  files: DeclarationFs,
  options: { ignoreCase?: boolean } = {},
): StateDirReading {
  // What was read, to be read again before the first write (holdsStill).
  const texts = new Map<string, string | undefined>();
  const listings = new Map<string, string>();
  const fs = readOnceView({
    ...files,
    readText: (path) => {
      const text = files.readText(path);
      texts.set(path, text);
      return text;
    },
    listDir: (path) => {
      const names = files.listDir(path);
      listings.set(path, takenFiles(names));
      return names;
    },
  });
  const current = inspectStateDir(stateDir, ownIds, fs);
  let unbound = false;
  if (current.manifest !== undefined) {
    try {
      unbound = manifestSessionIds(JSON.parse(fs.readText(current.manifestPath) ?? 'null')).length === 0;
    } catch {
      unbound = false;
    }
  }
  const declarations = new Map<number, WaveDeclaration>();
  const declaration = (wave: number) => {
    let read = declarations.get(wave);
    if (read === undefined) {
      read = readWaveDeclaration(stateDir, wave, fs, { ignoreCase: options.ignoreCase });
      declarations.set(wave, read);
    }
    return read;
  };
  if (current.manifest !== undefined) declaration(current.manifest.wave);
  if (incomingWave !== undefined) declaration(incomingWave);
  const holdsStill = (again: DeclarationFs): boolean => {
    try {
      for (const [path, text] of texts) if (again.readText(path) !== text) return false;
      for (const [path, names] of listings) if (takenFiles(again.listDir(path)) !== names) return false;
      return true;
    } catch {
      return false;
    }
  };
  return { stateDir, current, unbound, declaration, holdsStill };
}

/** The files of a listing a reader takes (agent files, aggregates), sorted, as one string; a missing directory lists none. */
function takenFiles(names: readonly string[] | undefined): string {
  return (names ?? [])
    .filter((name) => agentIdOfFileName(name) !== undefined || waveOfSidecarName(name) !== undefined)
    .sort()
    .join('\0');
}

/**
 * Whether syncing `incoming` into the state directory (`found`) can lose a plan. The content may be
 * replaced when it is the incoming plan already, when this clone knows it to be on the plan ref (it
 * published or synced it), or when it is what an interrupted sync into this state directory left there
 * (that directory's SyncInProgress). The session verdict `found` was read with only colours the message.
 */
export function findLocalPlanRisk(input: {
  repoRoot: string;
  found: StateDirReading;
  incoming: { wave: number; planDigest: string; declarationDigest: string };
  state: LocalSyncState;
}): LocalPlanRisk | undefined {
  const { found } = input;
  const stateDirKey = repoRelative(input.repoRoot, found.stateDir);
  const interrupted = syncInProgressIn(input.state, stateDirKey) ?? null;
  const known = input.state.known.filter((plan: KnownPlan) => plan.stateDir === stateDirKey);
  const { current } = found;
  if (current.found) {
    if (current.manifest === undefined) return { reason: 'unusable-manifest', message: current.problem?.message ?? `${current.manifestPath} cannot be used` };
    const declaration = found.declaration(current.manifest.wave);
    const digest = planDigest(current.manifest, declaration.status === 'complete' ? declaration.records : undefined);
    // What an interrupted sync left: what it found (judged safe then), or the skeleton it wrote on the
    // way (an unbound manifest of its wave granting nothing).
    const leftByInterruptedSync =
      interrupted !== null &&
      (digest === interrupted.previousDigest ||
        digest === interrupted.planDigest ||
        (current.manifest.wave === interrupted.wave && current.manifest.allowedPaths.length === 0 && current.manifest.session_id === undefined));
    if (digest !== input.incoming.planDigest && !known.some((plan) => plan.planDigest === digest) && !leftByInterruptedSync) {
      return { reason: 'unpublished-plan', wave: current.manifest.wave, session: current.session };
    }
  }
  const declaration = found.declaration(input.incoming.wave);
  if (declaration.status === 'invalid' || declaration.status === 'inconsistent') {
    return { reason: 'damaged-declaration', wave: input.incoming.wave, problems: declaration.problems };
  }
  if (declaration.status === 'complete' && declaration.records !== undefined) {
    const digest = declarationDigest(input.incoming.wave, declaration.records);
    const leftByInterruptedSync = interrupted !== null && interrupted.wave === input.incoming.wave && digest === interrupted.previousDeclarationDigest;
    if (digest !== input.incoming.declarationDigest && !known.some((plan) => plan.wave === input.incoming.wave && plan.declarationDigest === digest) && !leftByInterruptedSync) {
      return { reason: 'unpublished-declaration', wave: input.incoming.wave };
    }
  }
  return undefined;
}

/**
 * Whether the state directory (`found`) already enforces exactly this published wave (`incoming`, its
 * digests: incomingDigests): an unbound manifest of the same plan and a complete declaration with the same
 * records. A follower that syncs often then writes nothing. Decided on the texts read, which are read through
 * whatever stands at their paths: the caller first makes sure they are files of their own (sync looks at
 * syncedWavePaths with inspectWritePaths).
 */
export function isAlreadySynced(found: StateDirReading, incoming: { wave: number; planDigest: string; declarationDigest: string }): boolean {
  const { manifest } = found.current;
  if (manifest === undefined || !found.unbound) return false;
  const declaration = found.declaration(incoming.wave);
  if (declaration.status !== 'complete' || declaration.records === undefined) return false;
  return planDigest(manifest, declaration.records) === incoming.planDigest && declarationDigest(incoming.wave, declaration.records) === incoming.declarationDigest;
}

/**
 * What the state directory (`found`) holds before a sync writes `wave` into it, as digests (the
 * in-progress marker's `previousDigest` and `previousDeclarationDigest`): the manifest's plan, and the
 * declaration of `wave`.
 */
export function currentDigests(found: StateDirReading, wave: number): { previousDigest: string | null; previousDeclarationDigest: string | null } {
  const { manifest } = found.current;
  let previousDigest: string | null = null;
  if (manifest !== undefined) {
    const declaration = found.declaration(manifest.wave);
    previousDigest = planDigest(manifest, declaration.status === 'complete' ? declaration.records : undefined);
  }
  const incoming = found.declaration(wave);
  const previousDeclarationDigest = incoming.status === 'complete' && incoming.records !== undefined ? declarationDigest(wave, incoming.records) : null;
  return { previousDigest, previousDeclarationDigest };
}

/** The digests of a published wave as it will be written here. */
export function incomingDigests(wave: SyncableWave): { wave: number; planDigest: string; declarationDigest: string } {
  return { wave: wave.wave, planDigest: planDigest(wave.manifest, wave.records), declarationDigest: declarationDigest(wave.wave, wave.records) };
}

export type SyncWriteResult = WavePlanResult & {
  /** Set when the manifest computed here grants other entries than the published one (another Wave Scope version). */
  allowedPathsDiffer?: boolean;
};

/** What a synced wave's manifest says besides its grants: the published manifest's, unbound. */
function syncedManifestSettings(wave: SyncableWave, ignoreCase = false): ManifestSettings & { blockedCommands: string[]; gates: Record<string, boolean> } {
  const { manifest } = wave;
  return {
    wave: manifest.wave,
    role: manifest.role,
    enforcement: manifest.enforcement,
    blockedCommands: [...manifest.blockedCommands],
    // Explicitly empty, so gates of the plan being replaced are not carried over into this one.
    gates: { ...(manifest.gates ?? {}) },
    ownIds: new Set<string>(),
    // How this checkout proves it (the publisher's case rule is its own).
    ignoreCase,
  };
}

/**
 * The files writeSyncedWave will write into `stateDir` for `wave`, with their texts, for a caller that
 * prepares them ahead: the manifest's skeleton when the chain writes one over `replacing` (the manifest
 * there now; manifestSkeletonText), each per-agent file and the aggregate (declarationFiles, the writer's
 * own list), and the manifest (plannedManifestText, the writer's own computation). The manifest is left
 * out when its grants cannot be computed (the chain then stops on it and says why).
 *
 * Each is made only when it is reached: a writer that stages them one by one (stageWrites) has the first
 * ones on their way to disk while the manifest's text, the costliest (the union and the test siblings of
 * every agent), is still being computed.
 */
export function* syncedWaveFiles(stateDir: string, wave: SyncableWave, replacing?: WaveManifest, ignoreCase = false): Generator<DeclarationFile> {
  const settings = syncedManifestSettings(wave, ignoreCase);
  const skeleton = manifestSkeletonText(settings, replacing);
  if (skeleton !== undefined) yield { path: manifestPath(stateDir), text: skeleton };
  const planned = declarationFiles(stateDir, wave.wave, wave.records);
  yield* planned.agentFiles;
  yield planned.aggregate;
  let manifest: DeclarationFile;
  try {
    manifest = { path: manifestPath(stateDir), text: plannedManifestText(settings, wave.records) };
  } catch {
    // No manifest to prepare.
    return;
  }
  yield manifest;
}

/**
 * Every file a sync of `wave` into the state directory read as `found` writes, or may remove: the manifest,
 * the aggregate, and the per-agent file of each agent the wave declares and of each agent file there now
 * (the chain removes those the wave does not declare). The directories on their way are the state
 * directory, its filescopes/ and the wave's directory.
 */
export function syncedWavePaths(found: StateDirReading, wave: SyncableWave): string[] {
  const { stateDir } = found;
  return [manifestPath(stateDir), ...declarationWritePaths(stateDir, wave.wave, wave.records, found.declaration(wave.wave).agentFiles)];
}

/** What writeSyncedWave is asked to write. */
export interface SyncedWaveRequest {
  repoRoot: string;
  stateDir: string;
  wave: SyncableWave;
  ignoreCase?: boolean;
  afterWrite?: WavePlanRequest['afterWrite'];
}

/** A published wave prepared for the chain (prepareWavePlan): validated, proven, its manifest computed; nothing written. */
export interface PreparedSyncedWave {
  readonly plan: PreparedWavePlan;
  /** The manifest as published, to tell whether the one computed here grants the same. */
  readonly published: WaveManifest;
}

/**
 * The first half of writeSyncedWave: the chain up to its first write (prepareWavePlan), over the published
 * records, unbound. Entries are taken exactly as published (no directory promotion against this checkout's
 * files). Reads only; sync runs it while its staged files are made durable.
 */
export function prepareSyncedWave(request: SyncedWaveRequest, fs: DeclarationFs): { ok: true; prepared: PreparedSyncedWave } | WavePlanFailure {
  const { manifest, records } = request.wave;
  const prepared = prepareWavePlan(
    {
      repoRoot: request.repoRoot,
      stateDir: request.stateDir,
      ...syncedManifestSettings(request.wave),
      records: records.map((record) => ({ id: record.id, files: [...record.files] })),
      ignoreCase: request.ignoreCase,
      afterWrite: request.afterWrite,
    },
    fs,
  );
  return prepared.ok ? { ok: true, prepared: { plan: prepared.prepared, published: manifest } } : prepared;
}

/**
 * The second half of writeSyncedWave: the chain from its first write (commitWavePlan). Given `decidedOn`
 * (the reading the sync's checks decided on), nothing is written when the state directory no longer holds
 * what was read: a plan another command wrote meanwhile was never judged, and would be lost. The caller
 * holds the checkout's plan-write lock (planWriteLock.ts) from before this call to its end, so no other
 * writer's write falls between that second reading and the writes.
 */
export function commitSyncedWave(prepared: PreparedSyncedWave, fs: DeclarationFs, decidedOn?: StateDirReading): SyncWriteResult {
  if (decidedOn !== undefined && !decidedOn.holdsStill(fs)) {
    return syncStoppedBeforeWriting(prepared.plan.stateDir, `${decidedOn.stateDir} changed while this sync ran (another command wrote to it): nothing was written; run sync again`);
  }
  const result = commitWavePlan(prepared.plan, fs);
  if (!result.ok) return result;
  const differ = JSON.stringify(result.manifest.allowedPaths) !== JSON.stringify(prepared.published.allowedPaths);
  return differ ? { ...result, allowedPathsDiffer: true } : result;
}

/** A sync that stopped before its first write (step `state-dir`), for `message`. */
export function syncStoppedBeforeWriting(stateDir: string, message: string): WavePlanFailure {
  return { ok: false, step: 'state-dir', message, errors: [message], written: [], removed: [], stateDir };
}

/** Writes a published wave into `stateDir` through the one safe chain, unbound (prepareSyncedWave, then commitSyncedWave). */
export function writeSyncedWave(request: SyncedWaveRequest, fs: DeclarationFs): SyncWriteResult {
  const prepared = prepareSyncedWave(request, fs);
  return prepared.ok ? commitSyncedWave(prepared.prepared, fs) : prepared;
}

/** `<stateDir>` relative to the checkout's root, `/`-separated: the key of KnownPlan and SyncInProgress. */
export function stateDirKey(repoRoot: string, stateDir: string): string {
  return repoRelative(repoRoot, stateDir);
}
