// A whole draft plan (every wave a planner edits) checked and saved in one call: the save the
// extension's planner and the CLI share. Nothing is written unless every wave is disjoint; the wave the
// manifest names goes through the safe chain (writeWavePlan), the others are materialized, and waves
// the draft no longer has lose their declaration files. A wave or a manifest someone changed on disk after
// the draft was made is not written over unless the person chose to (staleWaves.ts). The file system arrives
// as a parameter.
import { join, relative, sep } from 'node:path';
import { findCollisions } from '../scope/collisions';
import { expand, FileIndex } from '../scope/fileIndex';
import { agentIdProblem, agentScopePath, manifestPath, waveDirPath, waveNumberProblem, waveSidecarPath, writeConfinement } from './declarationPaths';
import type { DeclarationFs, InTheWay } from './declarationStore';
import { agentFilesIn, declarationWritePaths, inTheWayWords, listDeclaredWaves, materializeWave, readWaveDeclaration } from './declarationStore';
import type { StateDirFs, StateDirResolution } from './stateDir';
import { resolveWriteStateDir, writeWavePlan } from './planWriter';
import { underPlanWriteLock } from './planWriteLock';
import type { TakePlanWriteLock } from './planWriteLock';
import { inspectStateDir, resolveStateDir } from './stateDir';
import { findStaleManifest, findStaleWaves, sameManifest } from './staleWaves';
import type { ManifestOnDisk, StaleManifest, StaleWave, WaveOnDisk } from './staleWaves';
import { MANIFEST_FILE_NAME, STATE_DIR_NAMES } from './stateDirNames';

/** One agent of a draft wave: its id and its scope entries. */
export interface DraftAgent {
  id: string;
  entries: readonly string[];
}

/** One wave of a draft. */
export interface DraftWave {
  /** Positive wave number (`wave-<N>` on disk). */
  wave: number;
  /** The role the manifest records when this is the active wave. */
  role: string;
  agents: readonly DraftAgent[];
}

/** Every wave of a plan as a planner edits it (the planner's draft fits this shape). */
export interface DraftPlan {
  waves: readonly DraftWave[];
  /** The wave the manifest names, if any. */
  activeWave?: number | undefined;
  /**
   * What matters of a save's base (the plan read from disk, or the one a save wrote): the manifest there, its
   * wave and role, or null when there was none. The plan of an empty state directory names wave 1 active with
   * no manifest behind it, so `activeWave` alone cannot tell. Undefined when not recorded (a base kept by an
   * older version); a draft's own is not read.
   */
  manifest?: ManifestOnDisk | null | undefined;
}

/** Two agents of one wave that would both own `witness`. */
export interface DraftCollision {
  wave: number;
  agents: [string, string];
  entries: [string, string];
  witness: string;
}

/** Collisions and contested files of every wave of a draft. */
export interface DraftValidation {
  /** No wave has a collision or an agent id twice. */
  ok: boolean;
  waves: {
    wave: number;
    collisions: DraftCollision[];
    duplicateIds: string[];
    /** Repository files two or more agents of the wave own, sorted. */
    contested: string[];
  }[];
}

/** Checks every wave of `draft` exactly against the repository's files. */
export function validateDraft(draft: DraftPlan, files: readonly string[], ignoreCase: boolean): DraftValidation {
  const index = new FileIndex(files, { ignoreCase });
  const waves = draft.waves.map((wave) => {
    const records = wave.agents.map((agent) => ({ id: agent.id, files: [...agent.entries] }));
    const report = findCollisions(records, { knownFiles: index, ignoreCase });
    const matched = expand([...new Set(records.flatMap((record) => record.files))], index, { ignoreCase });
    const owners = new Map<string, Set<string>>();
    for (const record of records) {
      for (const entry of record.files) {
        for (const file of matched.get(entry) ?? []) {
          const set = owners.get(file) ?? new Set<string>();
          set.add(record.id);
          owners.set(file, set);
        }
      }
    }
    return {
      wave: wave.wave,
      collisions: report.collisions.map((collision) => ({
        wave: wave.wave,
        agents: collision.agents,
        entries: collision.entries,
        witness: collision.witness,
      })),
      duplicateIds: report.duplicateIds,
      contested: [...owners].filter(([, ids]) => ids.size > 1).map(([file]) => file).sort(),
    };
  });
  return { ok: waves.every((wave) => wave.collisions.length === 0 && wave.duplicateIds.length === 0), waves };
}

export interface SaveDraftOptions {
  /** Absolute repository root. */
  repoRoot: string;
  ignoreCase: boolean;
  /** The repository's files (collision witnesses, directory promotion). */
  files: readonly string[];
  /** One of STATE_DIR_NAMES; anything else (or nothing) resolves the state directory as the CLI does. */
  stateDirName?: string;
  /** This process's own session ids (processLocalSessionIds); the manifest is bound to the first. */
  ownIds: ReadonlySet<string>;
  /** A writer with no session id of its own keeps the binding of the manifest it replaces (WavePlanRequest.keepBinding). */
  keepBinding?: boolean;
  /** The file system confined to `root` (the Node one is src/node/declarationFs.ts's nodeDeclarationFs). */
  fsAt(root: string): DeclarationFs;
  /**
   * The main checkout whose plan the hooks read when it is not `repoRoot` (`repoRoot` is a linked worktree
   * of it: governingCheckoutElsewhere); the save refuses then, since a plan written here would never be enforced.
   */
  governedFrom?: string | undefined;
  /**
   * The plan on disk the draft was edited from. A declared wave the draft lacks is removed only when the
   * base had it (the person deleted it); one written on disk since (the CLI, a sync, another window) is
   * kept. A wave the save would write or remove whose declarations on disk differ from the base's refuses
   * the save (step `stale`, nothing written) unless `overwrite` names it; so does a manifest the save would
   * write over a change made since (its wave, its role, or removed: see findStaleManifest) unless
   * `overwriteManifest` names it. Without a base, every declared wave the draft lacks is removed and nothing
   * is compared.
   */
  base?: DraftPlan | undefined;
  /**
   * Waves the person chose to overwrite although they changed on disk since the base, each as it was on
   * disk when the refusal showed it (StaleWave.onDisk): a wave that changed again since is refused again.
   */
  overwrite?: readonly WaveOnDisk[] | undefined;
  /** The checkout's plan-write lock (planWriteLock.ts), held from the save's first reading of the state directory to its last write. */
  lockPlan?: TakePlanWriteLock;
  /**
   * The manifest on disk when a refusal showed it (StaleManifest.onDisk; null: there was none), which the person
   * chose to write over: the draft's manifest replaces exactly that one; any other is refused again.
   */
  overwriteManifest?: ManifestOnDisk | null | undefined;
}

/**
 * The state directory a save of a draft writes: the one `stateDirName` names when it is one of
 * STATE_DIR_NAMES, else the one a new plan goes to, as the CLI resolves it (resolveWriteStateDir). The plan
 * a draft is edited from (its base) is read from here too, so the base and the staleness check compare the
 * same directory, even one that holds no manifest yet.
 */
export function draftStateDir(
  repoRoot: string,
  stateDirName: string | undefined,
  ownIds: ReadonlySet<string>,
  /** The repository's file system, asked for only when `stateDirName` does not settle it. */
  repoFs: () => StateDirFs,
): { stateDir: string } | { problem: string } {
  if (stateDirName !== undefined && (STATE_DIR_NAMES as readonly string[]).includes(stateDirName)) return { stateDir: join(repoRoot, stateDirName) };
  return resolveWriteStateDir(repoRoot, ownIds, repoFs());
}

/**
 * Why a plan saved into the state directory `stateDirName` (named by the setting) would not be the one
 * the hooks read: another state directory's manifest comes before it in the order they look, and they
 * read the first that is not provably another session's. Undefined when it would be (or none is named).
 * The planner still shows the named directory's plan; only Save refuses (found by red-team review,
 * 2026-12-06: the save was reported, and the hooks went on enforcing the older plan in .pi).
 */
export function hooksReadElsewhere(repoRoot: string, stateDirName: string | undefined, ownIds: ReadonlySet<string>, repoFs: StateDirFs): string | undefined {
  const order = STATE_DIR_NAMES as readonly string[];
  if (stateDirName === undefined || !order.includes(stateDirName)) return undefined;
  const read = resolveStateDir(repoRoot, ownIds, repoFs);
  if (!read.found || read.session === 'foreign' || order.indexOf(read.name) >= order.indexOf(stateDirName)) return undefined;
  return `the hooks read the plan in ${read.name}, whose manifest comes before ${stateDirName} in the order they look (${STATE_DIR_NAMES.join(', ')}), so a plan saved into ${stateDirName} would never be enforced; save into ${read.name} (the setting waveScope.plan.stateDirectory), or remove ${read.name}/${MANIFEST_FILE_NAME} first`;
}

/**
 * Where a save stopped: the safe chain's step, `materialize` for another wave, `remove-wave` for a deleted
 * one, `stale` when a wave it would write or remove changed on disk after the draft was made.
 */
export type DraftSaveStep = 'assert-disjoint' | 'state-dir' | 'stale' | 'validate' | 'materialize' | 'union' | 'manifest' | 'remove-wave';

export type DraftSaveResult =
  | {
      ok: true;
      wavesWritten: number[];
      manifestWave: number | undefined;
      /** The session the manifest written is bound to (the one it replaced kept its binding); absent when unbound or not written. */
      manifestBoundTo?: string;
      manifestRemoved?: boolean;
      message: string;
    }
  | {
      ok: false;
      step: DraftSaveStep;
      message: string;
      collisions: DraftCollision[];
      /** With step `stale`: the waves changed on disk since the draft was made, and what changed. */
      staleWaves?: StaleWave[];
      /** With step `stale`: the manifest changed on disk since the draft was made (its wave, its role, or removed), and the save would write over that. */
      staleManifest?: StaleManifest;
    };

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Saves the whole draft. Nothing is written unless every wave is disjoint and nothing the writes refuse (a
 * symbolic link, anything but a directory or a regular file) stands where any of them goes. Waves other than the active
 * one are materialized (both shapes) first; the active wave goes through writeWavePlan, which also
 * writes the manifest, last. Waves no longer in the draft (and in its base, when given) lose their
 * declaration files, the aggregate first (so a reader never sees an aggregate without its per-agent files). Every outcome is data.
 */
export function saveDraft(draft: DraftPlan, options: SaveDraftOptions): DraftSaveResult {
  const { ignoreCase } = options;
  const activeProblem = activeWaveProblem(draft);
  if (activeProblem !== undefined) return { ok: false, step: 'validate', message: `Not saved: ${activeProblem}. Nothing was written; the draft is kept.`, collisions: [] };
  const validation = validateDraft(draft, options.files, ignoreCase);
  if (!validation.ok) {
    const collisions = validation.waves.flatMap((wave) => wave.collisions);
    const duplicates = validation.waves.flatMap((wave) => wave.duplicateIds.map((id) => `wave ${wave.wave} names "${id}" twice`));
    const first = collisions[0];
    const reason = first
      ? `${plural(collisions.length, 'collision')} (wave ${first.wave}: ${first.agents[0]} and ${first.agents[1]} both own ${first.witness})`
      : duplicates.join('; ');
    return { ok: false, step: 'assert-disjoint', message: `Not saved: the plan is not disjoint, ${reason}. The draft is kept.`, collisions };
  }

  if (options.governedFrom !== undefined) {
    const main = options.governedFrom;
    return {
      ok: false,
      step: 'state-dir',
      message: `Not saved: this folder is a linked worktree of ${main}, and the hooks of every checkout of this repository read the plan of ${main}, so a plan saved here would never be enforced. Open ${main} to plan, or give this session a clone of its own. The draft is kept.`,
      collisions: [],
    };
  }
  // From the first reading of the state directory to the last write, no other writer of this checkout's
  // plan runs: the staleness check decides on what the save then writes over (found by red-team review,
  // 2026-12-06: a `plan write` landing between the two was written over unseen).
  const locked = underPlanWriteLock(options.lockPlan, () => saveChecked(draft, options));
  return locked.ok ? locked.value : { ok: false, step: 'state-dir', message: `Not saved: ${locked.problem}. The draft is kept.`, collisions: [] };
}

/** saveDraft from the state directory's first reading on, the draft checked and the checkout the one the hooks read. */
function saveChecked(draft: DraftPlan, options: SaveDraftOptions): DraftSaveResult {
  const { repoRoot, ignoreCase } = options;
  const repoFs = options.fsAt(repoRoot);
  const resolved = draftStateDir(repoRoot, options.stateDirName, options.ownIds, () => repoFs);
  if ('problem' in resolved) return { ok: false, step: 'state-dir', message: `Not saved: ${resolved.problem}.`, collisions: [] };
  const elsewhere = hooksReadElsewhere(repoRoot, options.stateDirName, options.ownIds, repoFs);
  if (elsewhere !== undefined) return { ok: false, step: 'state-dir', message: `Not saved: ${elsewhere}. Nothing was written; the draft is kept.`, collisions: [] };
  const stateDir = resolved.stateDir;

  // Confined to the repository, as `plan write` is: a `.claude` that links elsewhere (a shared folder,
  // another repository) is refused, not written through (found by red-team review, 2026-12-06).
  const confinement = writeConfinement(repoRoot, stateDir);
  const fs = confinement === repoRoot ? repoFs : options.fsAt(confinement);
  if (options.base !== undefined) {
    const staleWaves = findStaleWaves({
      draftWaves: draft.waves.map((wave) => wave.wave),
      base: options.base.waves.map((wave) => ({ wave: wave.wave, agents: wave.agents.map((agent) => ({ id: agent.id, entries: [...agent.entries] })) })),
      declaredWaves: listDeclaredWaves(stateDir, fs),
      onDisk: (wave) => (readWaveDeclaration(stateDir, wave, fs, { ignoreCase }).records ?? []).map((record) => ({ id: record.id, entries: [...record.files] })),
      overwrite: options.overwrite,
      ignoreCase,
      files: options.files,
    });
    const staleManifest = findStaleManifest({
      base: options.base.manifest,
      baseActiveWave: options.base.activeWave,
      draft: manifestOfDraft(draft),
      onDisk: manifestOnDisk(inspectStateDir(stateDir, options.ownIds, fs)),
      overwrite: options.overwriteManifest,
    });
    if (staleWaves.length > 0 || staleManifest !== undefined) {
      return {
        ok: false,
        step: 'stale',
        message: describeStaleWaves(staleWaves, staleManifest),
        collisions: [],
        staleWaves,
        ...(staleManifest === undefined ? {} : { staleManifest }),
      };
    }
  }

  const kept = new Set(draft.waves.map((wave) => wave.wave));
  const deleted = options.base === undefined ? undefined : new Set(options.base.waves.map((wave) => wave.wave).filter((wave) => !kept.has(wave)));
  // Looked at before the first write, for every wave at once: the chain looks at each wave's files itself,
  // but only when it reaches that wave, after the waves before it were written.
  const inTheWay = saveInTheWay(draft, stateDir, wavesToRemove(listDeclaredWaves(stateDir, fs), kept, deleted).removed, fs);
  if (inTheWay !== undefined) {
    const shown = relative(repoRoot, inTheWay.path).split(sep).join('/') || inTheWay.path;
    return {
      ok: false,
      step: 'state-dir',
      message: `Not saved: ${shown} is ${inTheWayWords(inTheWay.found)} where the save writes the plan: Wave Scope never writes through such an entry or replaces it. Move it out of the way, then save again. Nothing was written; the draft is kept.`,
      collisions: [],
    };
  }

  const written: number[] = [];
  let manifestBoundTo: string | undefined;
  // The active wave last: its manifest is the commit point of the whole save.
  const ordered = [...draft.waves].sort((a, b) => Number(a.wave === draft.activeWave) - Number(b.wave === draft.activeWave) || a.wave - b.wave);
  for (const wave of ordered) {
    const records = wave.agents.map((agent) => ({ id: agent.id, files: [...agent.entries] }));
    if (wave.wave === draft.activeWave) {
      const result = writeWavePlan(
        { repoRoot, stateDir, wave: wave.wave, role: wave.role, records, ownIds: options.ownIds, ...(options.keepBinding === true ? { keepBinding: true } : {}), ignoreCase, knownFiles: options.files },
        fs,
      );
      if (!result.ok) {
        return {
          ok: false,
          step: result.step,
          message: `Not saved completely: wave ${wave.wave} stopped at ${result.step}: ${result.message}.`,
          collisions: (result.collisions ?? []).map((collision) => ({
            wave: wave.wave,
            agents: collision.agents,
            entries: collision.entries,
            witness: collision.witness,
          })),
        };
      }
      manifestBoundTo = result.manifest.session_id;
    } else {
      const result = materializeWave({ stateDir, wave: wave.wave, records, repoRoot, ignoreCase }, fs);
      if (!result.ok) {
        const detail = result.reason === 'invalid-input' ? result.errors.map((error) => error.message).join(' ') : result.message;
        return { ok: false, step: 'materialize', message: `Not saved completely: wave ${wave.wave}: ${detail}`, collisions: [] };
      }
    }
    written.push(wave.wave);
  }

  // A draft with no active wave whose base had one: the person made it inactive or deleted it, and the
  // planner said nothing enforces it once saved. The manifest that names it is removed, if it is still the
  // one the draft was made from (a manifest written since is left, and the message says so); before the
  // deleted waves' declarations go, so the hooks never enforce a wave without them (found by red-team
  // review, 2026-12-06: the manifest went on granting a deleted wave's paths).
  let manifestNote = draft.activeWave !== undefined ? `; the manifest names wave ${draft.activeWave}` : '; no active wave, so the manifest was not touched';
  let manifestRemoved = false;
  if (draft.activeWave === undefined) {
    const found = inspectStateDir(stateDir, options.ownIds, fs);
    const onDisk = manifestOnDisk(found);
    const base = options.base?.manifest;
    if (onDisk !== null && onDisk !== undefined && base !== undefined && sameManifest(base, onDisk) && found.session !== 'foreign') {
      try {
        fs.remove(manifestPath(stateDir));
      } catch (error) {
        return { ok: false, step: 'manifest', message: `Saved ${plural(written.length, 'wave')}, but the manifest naming wave ${onDisk.wave} could not be removed: ${describeError(error)}; it still makes that wave active.`, collisions: [] };
      }
      manifestNote = `; no wave is active now: the manifest naming wave ${onDisk.wave} was removed`;
      manifestRemoved = true;
    } else if (onDisk !== null && onDisk !== undefined) {
      manifestNote = `; the manifest on disk still names wave ${onDisk.wave}${base === undefined ? '' : ', written since the draft was made'}, which stays active`;
    }
  }

  const removedWaves: number[] = [];
  const { removed: removing, newer: newerWaves } = wavesToRemove(listDeclaredWaves(stateDir, fs), kept, deleted);
  for (const wave of removing) {
    try {
      removeWaveDeclarations(stateDir, wave, fs, ignoreCase);
    } catch (error) {
      return {
        ok: false,
        step: 'remove-wave',
        message: `Saved ${plural(written.length, 'wave')}, but wave ${wave}'s declarations could not be removed: ${describeError(error)}.`,
        collisions: [],
      };
    }
    removedWaves.push(wave);
  }

  const where = stateDir.slice(repoRoot.length + 1) || stateDir;
  const removedNote = removedWaves.length > 0 ? `; removed wave ${removedWaves.join(', ')}` : '';
  const newerNote = newerWaves.length > 0 ? `; kept wave ${newerWaves.join(', ')}, written since the draft was made` : '';
  return {
    ok: true,
    wavesWritten: written.sort((a, b) => a - b),
    manifestWave: draft.activeWave,
    ...(manifestBoundTo === undefined ? {} : { manifestBoundTo }),
    ...(manifestRemoved ? { manifestRemoved } : {}),
    message: `Saved ${plural(written.length, 'wave')} to ${where}${manifestNote}${removedNote}${newerNote}.`,
  };
}

/**
 * Which of the waves declared on disk (`declared`) a save removes: those the draft does not keep, when the
 * base had them (`deleted`: the base's waves the draft lacks; undefined without a base: every one). The
 * others it does not keep were written since the draft was made (`newer`).
 */
function wavesToRemove(declared: readonly number[], kept: ReadonlySet<number>, deleted: ReadonlySet<number> | undefined): { removed: number[]; newer: number[] } {
  const removed: number[] = [];
  const newer: number[] = [];
  for (const wave of declared) {
    if (kept.has(wave)) continue;
    if (deleted !== undefined && !deleted.has(wave)) newer.push(wave);
    else removed.push(wave);
  }
  return { removed, newer };
}

/**
 * What stands in the way of the whole save (DeclarationFs.findInTheWay): every file the chain writes or
 * removes for each wave of the draft (the manifest too when one is active), and those of each wave it
 * removes. Waves and agents whose number or id cannot name a file are left to the chain, which refuses
 * them; undefined when nothing is in the way, or when `fs` cannot look ahead or the look fails.
 */
function saveInTheWay(draft: DraftPlan, stateDir: string, removing: readonly number[], fs: DeclarationFs): InTheWay | undefined {
  if (fs.findInTheWay === undefined) return undefined;
  try {
    const paths = draft.activeWave === undefined ? [] : [manifestPath(stateDir)];
    for (const wave of draft.waves) {
      if (waveNumberProblem(wave.wave) !== undefined) continue;
      const agents = wave.agents.filter((agent) => agentIdProblem(agent.id) === undefined);
      paths.push(...declarationWritePaths(stateDir, wave.wave, agents, agentFilesIn(stateDir, wave.wave, fs)));
    }
    for (const wave of removing) paths.push(...declarationWritePaths(stateDir, wave, [], agentFilesIn(stateDir, wave, fs)));
    return fs.findInTheWay(paths);
  } catch {
    return undefined;
  }
}

/** Why the draft's active wave cannot be written into the manifest: not a wave number, or no wave of the draft. */
function activeWaveProblem(draft: DraftPlan): string | undefined {
  if (draft.activeWave === undefined) return undefined;
  const problem = waveNumberProblem(draft.activeWave);
  if (problem !== undefined) return `the active ${problem}`;
  if (!draft.waves.some((wave) => wave.wave === draft.activeWave)) {
    return `the draft makes wave ${draft.activeWave} active but has no wave ${draft.activeWave} (waves: ${draft.waves.map((wave) => wave.wave).join(', ') || 'none'})`;
  }
  return undefined;
}

/** The manifest a save of `draft` writes: its active wave with that wave's role; undefined when it leaves the manifest alone. */
function manifestOfDraft(draft: DraftPlan): ManifestOnDisk | undefined {
  const active = draft.waves.find((wave) => wave.wave === draft.activeWave);
  return active === undefined ? undefined : { wave: active.wave, role: active.role };
}

/** The manifest a state directory holds now: null when there is none, undefined when the file is no usable manifest. */
function manifestOnDisk(found: StateDirResolution): ManifestOnDisk | null | undefined {
  if (!found.found) return null;
  return found.manifest === undefined ? undefined : { wave: found.manifest.wave, role: found.manifest.role };
}

/** The refusal of a save that would undo changes made on disk after the draft, for a person. */
function describeStaleWaves(staleWaves: readonly StaleWave[], staleManifest: StaleManifest | undefined): string {
  const waves = staleWaves.map(
    (stale) => `Wave ${stale.wave} (${stale.action === 'write' ? 'the draft would write over it' : 'the draft deletes it'}): ${stale.changes.join('; ')}.`,
  );
  const manifest = staleManifest === undefined ? [] : [`${staleManifest.change.charAt(0).toUpperCase()}${staleManifest.change.slice(1)}.`];
  return `Not saved: the plan on disk changed after this draft was made, and saving would undo that. ${[...waves, ...manifest].join(' ')} Load the plan from disk, or overwrite these changes on purpose. Nothing was written; the draft is kept.`;
}

/** Removes a wave's aggregate, then every per-agent file it or its directory names. */
function removeWaveDeclarations(stateDir: string, wave: number, fs: DeclarationFs, ignoreCase: boolean): void {
  const declaration = readWaveDeclaration(stateDir, wave, fs, { ignoreCase });
  fs.remove(waveSidecarPath(stateDir, wave));
  const listed = (fs.listDir(waveDirPath(stateDir, wave)) ?? []).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
  const ids = new Set([...(declaration.records ?? []).map((record) => record.id), ...listed]);
  for (const id of ids) {
    try {
      fs.remove(agentScopePath(stateDir, wave, id));
    } catch {
      // A name that is not an agent id is not ours to remove.
    }
  }
}
