// The one safe chain that turns a wave's declarations into an enforced plan:
//
//   validate → (prove disjoint on the input) → materialize both shapes → assert disjoint on the
//   aggregate as written → union + test siblings → write the manifest, bound to the writer's session
//
// The union comes after the disjointness proof because a union over colliding scopes would grant the
// contested file and every later gate would see a legal write. No step can be skipped or reordered
// by a caller: writeWavePlan (prepareWavePlan, then commitWavePlan on what it prepared) is the only
// writer of `wave-scope.json` in Wave Scope.
import { join } from 'node:path';
import { findCollisions } from '../scope/collisions';
import type { Collision, CollisionReport } from '../scope/collisions';
import { ScopeProofTooComplex } from '../scope/scopeAutomaton';
import type { DeclarationInputError, DeclaredRecord } from './declarationInput';
import { controlDirOf, validateWaveRecords } from './declarationInput';
import { manifestPath, waveNumberProblem } from './declarationPaths';
import type { DeclarationFs, InTheWay, WriteObserver } from './declarationStore';
import { declarationInTheWay, describeInTheWay, readWaveDeclaration, writeWaveDeclaration } from './declarationStore';
import { DEFAULT_ENFORCEMENT, ENFORCEMENT_VALUES, formatManifest, validateManifest } from './manifest';
import type { Enforcement, WaveManifest } from './manifest';
import { FileIndex } from '../scope/fileIndex';
import { parseJsonText } from './jsonText';
import { scopeDigest } from '../scope/scopeDigest';
import { union } from '../scope/scopeUnion';
import { classifyManifestSession, writerSessionBinding } from './sessionBinding';
import type { StateDirFs } from './stateDir';
import { resolveStateDir } from './stateDir';
import { DEFAULT_STATE_DIR_NAME, MANIFEST_FILE_NAME, STATE_DIR_NAMES } from './stateDirNames';
import { expandTestSiblings } from '../scope/testSiblings';
import { underPlanWriteLock } from './planWriteLock';
import type { TakePlanWriteLock } from './planWriteLock';

/** A step of the chain; a failure names the one that stopped it. */
export type WavePlanStep = 'validate' | 'state-dir' | 'assert-disjoint' | 'materialize' | 'union' | 'manifest';

export interface WavePlanRequest {
  /** Absolute repository root (entries are normalised against it; the state dir is resolved in it). */
  repoRoot: string;
  /** Absolute state directory; resolved with resolveWriteStateDir when absent. */
  stateDir?: string;
  wave: number;
  role: string;
  /** Default `strict`. */
  enforcement?: Enforcement;
  /** The parsed `[{id, files}]` input; validated here. */
  records: unknown;
  /** Default: those of the manifest being replaced (when it is this session's or unbound), else []. */
  blockedCommands?: string[];
  /** Default: those of the manifest being replaced (when it is this session's or unbound), else none. */
  gates?: Record<string, boolean>;
  /** This process's own session ids (processLocalSessionIds); the manifest is bound to the first, or unbound. */
  ownIds: ReadonlySet<string>;
  /**
   * A writer with no session id of its own (the planner) keeps the binding of the manifest it replaces: it
   * edits that session's plan. Unbound, the plan would bind every session, and take over from another
   * session's own plan in a later state directory (found by red-team review, 2026-12-06).
   */
  keepBinding?: boolean;
  ignoreCase?: boolean;
  /** Repository files, for glob-against-glob witnesses and directory promotion. */
  knownFiles?: readonly string[];
  /** Files the wave will create; each must be a declared plain entry. */
  newFiles?: readonly string[];
  /** Called after each completed file-system change (crash tests). */
  afterWrite?: WriteObserver;
  /**
   * The checkout's plan-write lock (planWriteLock.ts), which writeWavePlan holds from its first reading to
   * its last write; a writer that holds it already over readings of its own (amend, the planner's Save) leaves it out.
   */
  lockPlan?: TakePlanWriteLock;
}

export interface WavePlanWritten {
  /** Absolute state directory used. */
  stateDir: string;
  /** Files written, in order. */
  written: string[];
  /** Files removed, in order. */
  removed: string[];
}

export type WavePlanResult =
  | ({
      ok: true;
      manifestPath: string;
      manifest: WaveManifest;
      /** The validator's warnings about the written manifest. */
      warnings: string[];
      records: DeclaredRecord[];
      /** Scope digest per agent id. */
      digests: Record<string, string>;
    } & WavePlanWritten)
  | ({
      ok: false;
      step: WavePlanStep;
      /** One sentence for a person: which step failed and why. */
      message: string;
      /** Every individual problem (input errors, manifest errors), as sentences. */
      errors: string[];
      /** The typed input errors of the `validate` step. */
      inputErrors?: DeclarationInputError[];
      /**
       * With step `state-dir`: a symbolic link (or anything but a directory or a regular file) where the chain
       * would write or remove a file, or on the way to one, found before its first write (nothing written).
       */
      inTheWay?: InTheWay;
      /** The colliding pairs of the `assert-disjoint` step, with witnesses. */
      collisions?: Collision[];
      duplicateIds?: string[];
    } & WavePlanWritten);

/** Where a new plan goes: the resolved state dir unless it is another session's, else the first free candidate. */
export function resolveWriteStateDir(
  repoRoot: string,
  ownIds: ReadonlySet<string>,
  fs: StateDirFs,
): { stateDir: string } | { problem: string } {
  const resolved = resolveStateDir(repoRoot, ownIds, fs);
  if (resolved.session !== 'foreign') return { stateDir: resolved.stateDir };
  const preference = [DEFAULT_STATE_DIR_NAME, ...STATE_DIR_NAMES.filter((name) => name !== DEFAULT_STATE_DIR_NAME)];
  for (const name of preference) {
    const candidate = join(repoRoot, name);
    try {
      if (fs.readText(join(candidate, MANIFEST_FILE_NAME)) === undefined) return { stateDir: candidate };
    } catch {
      // Unreadable: not free.
    }
  }
  return { problem: `every state directory (${STATE_DIR_NAMES.join(', ')}) holds another session's manifest; pass --state-dir` };
}

function describeCollision(collision: Collision): string {
  const [a, b] = collision.agents;
  const [entryA, entryB] = collision.entries;
  return `agents "${a}" and "${b}" both claim "${collision.witness}" (${JSON.stringify(entryA)} and ${JSON.stringify(entryB)}, ${collision.kind})`;
}

/** What a manifest says besides its grants; writeWavePlan takes each from its request or the manifest it replaces. */
export interface ManifestSettings {
  wave: number;
  role: string;
  enforcement?: Enforcement;
  blockedCommands: readonly string[];
  gates?: Record<string, boolean>;
  /** The writer's own session ids: the manifest is bound to the first, or unbound. */
  ownIds: ReadonlySet<string>;
  /** The wave was proven disjoint with case folded (WaveManifest.ignoreCase). */
  ignoreCase?: boolean;
}

function manifestWith(settings: ManifestSettings, allowedPaths: string[]): WaveManifest {
  return {
    version: 1,
    wave: settings.wave,
    role: settings.role,
    enforcement: settings.enforcement ?? DEFAULT_ENFORCEMENT,
    allowedPaths,
    blockedCommands: [...settings.blockedCommands],
    ...(settings.gates === undefined ? {} : { gates: { ...settings.gates } }),
    ...(settings.ignoreCase === true ? { ignoreCase: true } : {}),
    ...writerSessionBinding(settings.ownIds),
  };
}

/**
 * The text of the manifest writeWavePlan writes over `records` once they are on disk and proven disjoint:
 * the grants computed from them (union and test siblings), `settings` for the rest. For a writer that
 * prepares its files ahead (sync stages them, src/node/stagedWrites.ts); the chain computes its own from
 * what it reads back, so a text prepared from other records is simply not used. Throws when the union
 * cannot be computed.
 */
export function plannedManifestText(settings: ManifestSettings, records: readonly DeclaredRecord[]): string {
  return formatManifest(manifestWith(settings, grantsOf(records, settings.role)));
}

// The grants last computed, and from what: a writer that prepares the manifest ahead (plannedManifestText)
// computes them from the very records the chain then reads back, which then finds them computed. The grants
// are a function of the records and the role alone.
let lastGrants: { records: DeclaredRecord[]; role: string; allowedPaths: string[] } | undefined;

/** The union of `records`, with the test siblings of `role`: what a manifest over them grants. Throws when the union cannot be computed. */
function grantsOf(records: readonly DeclaredRecord[], role: string): string[] {
  if (lastGrants !== undefined && lastGrants.role === role && identicalRecords(lastGrants.records, records)) return [...lastGrants.allowedPaths];
  const allowedPaths = expandTestSiblings(union(records), { role });
  lastGrants = { records: records.map((record) => ({ id: record.id, files: [...record.files] })), role, allowedPaths: [...allowedPaths] };
  return allowedPaths;
}

/**
 * The skeleton writeWavePlan writes over `previous` (the manifest it replaces) before it touches the
 * declaration: when `previous` grants something for this very wave, a manifest of the new settings that
 * grants nothing, so no crash can leave old grants standing over an aggregate they were not computed from.
 * Undefined when the chain writes none. For a writer that prepares its files ahead, like plannedManifestText.
 */
export function manifestSkeletonText(settings: ManifestSettings, previous: WaveManifest | undefined): string | undefined {
  if (previous === undefined || previous.wave !== settings.wave || previous.allowedPaths.length === 0) return undefined;
  return formatManifest(manifestWith(settings, []));
}

/** The same agents in the same order, each with the same entries in the same order (the proof and the grants depend on nothing else). */
function identicalRecords(a: readonly DeclaredRecord[], b: readonly DeclaredRecord[]): boolean {
  return a.length === b.length && a.every((record, i) => {
    const other = b[i] as DeclaredRecord;
    return record.id === other.id && record.files.length === other.files.length && record.files.every((entry, j) => entry === other.files[j]);
  });
}

/**
 * Whether a stopped chain stopped on its input (exit 1 in the CLI) rather than on the file system (exit 2):
 * the records, the state directory or the proof; or a manifest the records cannot give, found before
 * anything was written.
 */
export function stoppedOnInput(result: Extract<WavePlanResult, { ok: false }>): boolean {
  if (result.step === 'validate' || result.step === 'state-dir' || result.step === 'assert-disjoint') return true;
  return (result.step === 'manifest' || result.step === 'union') && result.written.length === 0 && result.removed.length === 0;
}

/** The proof over `records`, or the reason it could not be made: unproven is not disjoint. */
function proveDisjoint(records: readonly DeclaredRecord[], options: { knownFiles: FileIndex | readonly string[]; ignoreCase?: boolean }): CollisionReport | ScopeProofTooComplex {
  try {
    return findCollisions(records, options);
  } catch (error) {
    if (error instanceof ScopeProofTooComplex) return error;
    throw error;
  }
}

/** A chain that stopped: which step, and why. */
export type WavePlanFailure = Extract<WavePlanResult, { ok: false }>;

/**
 * A wave plan validated and proven disjoint, with the manifest its records give computed and checked, and
 * nothing written yet: what commitWavePlan writes. Only prepareWavePlan makes one, so the chain's order
 * cannot be changed by a caller: a writer that has slow work of its own to overlap (sync waits on its
 * staged files' fsyncs) prepares first, does that work, then commits.
 */
export interface PreparedWavePlan {
  readonly request: WavePlanRequest;
  readonly stateDir: string;
  readonly records: readonly DeclaredRecord[];
  /** The manifest text at the target when it was prepared (undefined: none); commit prepares again when it changed since. */
  readonly replacedText: string | undefined;
  /** That manifest, when it is valid. */
  readonly replaced: WaveManifest | undefined;
  readonly settings: ManifestSettings;
  readonly knownFiles: FileIndex | readonly string[];
  /** The proof over `records` (disjoint). */
  readonly proof: CollisionReport;
  readonly manifest: WaveManifest;
  readonly manifestCheck: { errors: string[]; warnings: string[] };
  /** Scope digest per agent id, of `records`. */
  readonly digests: Readonly<Record<string, string>>;
}

// The plans prepareWavePlan made: commitWavePlan writes no other.
const preparedPlans = new WeakSet<PreparedWavePlan>();

function failure(step: WavePlanStep, message: string, stateDir: string, done: { written: string[]; removed: string[] }, extra: Partial<WavePlanFailure> = {}): WavePlanFailure {
  return { ok: false, step, message, errors: extra.errors ?? [message], ...done, stateDir, ...extra } as WavePlanFailure;
}

/** The collisions a proof found, as the chain reports them: `what` is proven not disjoint, then `consequence`. */
function notDisjoint(report: CollisionReport, what: string, consequence: string): { message: string; extra: Partial<WavePlanFailure> } {
  const details = [...report.collisions.map(describeCollision), ...report.duplicateIds.map((id) => `duplicate id "${id}"`)];
  return {
    message: `${what} not disjoint (${details.length} problem${details.length === 1 ? '' : 's'}); ${consequence}`,
    extra: { errors: details, collisions: report.collisions, duplicateIds: report.duplicateIds },
  };
}

/**
 * The chain up to its first write: validates the request, resolves the state directory, reads the manifest
 * being replaced, proves the records disjoint, and computes and checks the manifest they give. Reads, never
 * writes; a stop is returned as data with nothing written.
 */
export function prepareWavePlan(request: WavePlanRequest, fs: DeclarationFs): { ok: true; prepared: PreparedWavePlan } | WavePlanFailure {
  const nothing = { written: [], removed: [] };
  const fail = (step: WavePlanStep, message: string, extra: Partial<WavePlanFailure> = {}, stateDir = request.stateDir ?? '') => failure(step, message, stateDir, nothing, extra);

  const problems: string[] = [];
  const waveProblem = waveNumberProblem(request.wave);
  if (waveProblem !== undefined) problems.push(waveProblem);
  if (typeof request.role !== 'string' || request.role.trim() === '') problems.push('role must be a non-empty string');
  const enforcement = request.enforcement ?? DEFAULT_ENFORCEMENT;
  if (!ENFORCEMENT_VALUES.includes(enforcement)) problems.push(`enforcement must be one of strict, warn, off; got ${String(enforcement)}`);
  // The state directory is resolved first (read-only) so entries inside it can be refused as control state.
  let stateDir = request.stateDir;
  let stateDirProblem: string | undefined;
  if (stateDir === undefined) {
    const resolved = resolveWriteStateDir(request.repoRoot, request.ownIds, fs);
    if ('problem' in resolved) stateDirProblem = resolved.problem;
    else stateDir = resolved.stateDir;
  }
  // One index of the repository's files serves directory promotion and both disjointness proofs.
  const knownIndex = request.knownFiles === undefined ? undefined : new FileIndex(request.knownFiles, { ignoreCase: request.ignoreCase });
  const validation = validateWaveRecords(request.records, {
    repoRoot: request.repoRoot,
    ignoreCase: request.ignoreCase,
    newFiles: request.newFiles,
    files: knownIndex,
    controlDir: stateDir === undefined ? undefined : controlDirOf(request.repoRoot, stateDir),
  });
  const inputMessages = [...problems, ...validation.errors.map((error) => error.message)];
  if (inputMessages.length > 0 || validation.records === undefined) {
    return fail('validate', `the wave plan is invalid (${inputMessages.length} problem${inputMessages.length === 1 ? '' : 's'}); nothing was written`, {
      errors: inputMessages,
      inputErrors: validation.errors,
    });
  }
  const records = validation.records;

  if (stateDir === undefined) return fail('state-dir', stateDirProblem ?? 'no state directory');
  const target = manifestPath(stateDir);

  // What the manifest being replaced says: another session's manifest is never overwritten.
  let previous: WaveManifest | undefined;
  let replacedText: string | undefined;
  try {
    replacedText = fs.readText(target);
    if (replacedText !== undefined) {
      const json = parseJsonText(replacedText);
      const parsed = json.ok ? json.value : undefined;
      if (classifyManifestSession(parsed, request.ownIds) === 'foreign') {
        return fail('state-dir', `${target} belongs to another session; refusing to overwrite it (choose another --state-dir)`, {}, stateDir);
      }
      previous = validateManifest(parsed).manifest;
    }
  } catch (error) {
    return fail('state-dir', `${target} cannot be read: ${(error as Error).message}`, {}, stateDir);
  }

  const knownFiles = knownIndex ?? [];
  const proof = proveDisjoint(records, { knownFiles, ignoreCase: request.ignoreCase });
  if (proof instanceof ScopeProofTooComplex) return fail('assert-disjoint', `${proof.message}; nothing was written`, {}, stateDir);
  if (!proof.ok) {
    const refused = notDisjoint(proof, 'the declared scopes are', 'nothing was written');
    return fail('assert-disjoint', refused.message, refused.extra, stateDir);
  }

  const settings: ManifestSettings = {
    wave: request.wave,
    role: request.role,
    enforcement,
    blockedCommands: request.blockedCommands ?? previous?.blockedCommands ?? [],
    gates: request.gates ?? previous?.gates,
    ownIds: request.keepBinding === true && request.ownIds.size === 0 && previous?.session_id !== undefined ? new Set([previous.session_id]) : request.ownIds,
    ignoreCase: request.ignoreCase === true,
  };

  // The manifest these records give, computed and checked before anything is written: an entry the
  // records' grammar takes but a manifest refuses as a grant stops the chain here, with the plan in
  // place untouched, rather than after the declaration was replaced.
  let allowedPaths: string[];
  try {
    allowedPaths = grantsOf(records, request.role);
  } catch (error) {
    return fail('union', `the union could not be computed: ${(error as Error).message}; nothing was written`, {}, stateDir);
  }
  const manifest = manifestWith(settings, allowedPaths);
  const manifestCheck = validateManifest(manifest);
  if (manifestCheck.errors.length > 0) {
    return fail('manifest', `the computed manifest is invalid: ${manifestCheck.errors.join('; ')}; nothing was written`, { errors: manifestCheck.errors }, stateDir);
  }
  const prepared: PreparedWavePlan = { request, stateDir, records, replacedText, replaced: previous, settings, knownFiles, proof, manifest, manifestCheck, digests: digestsOf(records) };
  preparedPlans.add(prepared);
  return { ok: true, prepared };
}

function digestsOf(records: readonly DeclaredRecord[]): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const record of records) digests[record.id] = scopeDigest(record.files);
  return digests;
}

/**
 * The chain from its first write: the skeleton over a manifest of this very wave, both shapes of the
 * declaration, the proof again on what is on disk, the manifest. When the manifest at the target is no
 * longer the one `plan` was prepared over, the plan is prepared again first, so every decision is made on
 * what is there at the moment of writing, as in one run of the chain.
 */
export function commitWavePlan(plan: PreparedWavePlan, fs: DeclarationFs): WavePlanResult {
  if (!preparedPlans.has(plan)) throw new Error('commitWavePlan writes only a plan prepareWavePlan made');
  const target = manifestPath(plan.stateDir);
  let replacedText: string | undefined;
  try {
    replacedText = fs.readText(target);
  } catch (error) {
    return failure('state-dir', `${target} cannot be read: ${(error as Error).message}`, plan.stateDir, { written: [], removed: [] });
  }
  if (replacedText === plan.replacedText) return writePrepared(plan, fs);
  const again = prepareWavePlan(plan.request, fs);
  return again.ok ? writePrepared(again.prepared, fs) : again;
}

/** commitWavePlan's writes, on a plan prepared over the manifest there now. */
function writePrepared(plan: PreparedWavePlan, fs: DeclarationFs): WavePlanResult {
  const { request, stateDir, records, settings, knownFiles } = plan;
  const target = manifestPath(stateDir);
  const done = { written: [] as string[], removed: [] as string[] };
  const fail = (step: WavePlanStep, message: string, extra: Partial<WavePlanFailure> = {}) => failure(step, message, stateDir, done, extra);

  const note = (kind: 'manifest-skeleton' | 'manifest', path: string) => {
    fs.sync?.();
    done.written.push(path);
    request.afterWrite?.({ kind, action: 'write', path });
  };

  // The standing manifest of this very wave was computed from the aggregate about to be replaced:
  // until the new one is proven, it grants nothing.
  const skeleton = manifestSkeletonText(settings, plan.replaced);
  if (skeleton !== undefined) {
    try {
      fs.writeAtomic(target, skeleton);
      note('manifest-skeleton', target);
    } catch (error) {
      return fail('materialize', `${target}: ${(error as Error).message}`);
    }
  }

  const write = writeWaveDeclaration(stateDir, request.wave, records, fs, { ignoreCase: request.ignoreCase, afterWrite: request.afterWrite });
  done.written.push(...write.written);
  done.removed.push(...write.removed);
  if (!write.ok) return fail('materialize', write.message);

  // Prove disjointness on what is actually on disk, not on what we meant to write.
  const declaration = readWaveDeclaration(stateDir, request.wave, fs, { ignoreCase: request.ignoreCase });
  if (declaration.status !== 'complete' || declaration.records === undefined) {
    return fail('materialize', `the declaration of wave ${request.wave} on disk is ${declaration.status}: ${declaration.problems.join('; ')}`, { errors: declaration.problems });
  }
  // The proof, the grants and the digests are functions of the records (and the known files): records
  // read back exactly as prepared have all three made on them already; any others are proven and computed again.
  const readBackAsPlanned = identicalRecords(declaration.records, records);
  const report = readBackAsPlanned ? plan.proof : proveDisjoint(declaration.records, { knownFiles, ignoreCase: request.ignoreCase });
  if (report instanceof ScopeProofTooComplex) return fail('assert-disjoint', `the aggregate on disk: ${report.message}; the manifest was not written`);
  if (!report.ok) {
    const refused = notDisjoint(report, 'the aggregate on disk is', 'the manifest was not written');
    return fail('assert-disjoint', refused.message, refused.extra);
  }

  let allowedPaths: string[];
  try {
    allowedPaths = readBackAsPlanned ? plan.manifest.allowedPaths : grantsOf(declaration.records, request.role);
  } catch (error) {
    return fail('union', `the union could not be computed: ${(error as Error).message}`);
  }

  const manifest = readBackAsPlanned ? plan.manifest : manifestWith(settings, allowedPaths);
  const check = readBackAsPlanned ? plan.manifestCheck : validateManifest(manifest);
  if (check.errors.length > 0) {
    return fail('manifest', `the computed manifest is invalid: ${check.errors.join('; ')}`, { errors: check.errors });
  }
  try {
    fs.writeAtomic(target, formatManifest(manifest));
    note('manifest', target);
  } catch (error) {
    return fail('manifest', `${target}: ${(error as Error).message}`);
  }

  const digests = readBackAsPlanned ? { ...plan.digests } : digestsOf(declaration.records);
  return { ok: true, stateDir, manifestPath: target, manifest, warnings: check.warnings, records: declaration.records, digests, ...done };
}

/**
 * Every file the chain may write or remove for `plan`, looked at before its first write
 * (declarationInTheWay: the manifest, the aggregate, the per-agent file of each record and of each agent file
 * in the wave's directory now): a refusal (step `state-dir`, with `inTheWay`) when an entry the writes would
 * refuse stands there or on the way, so the chain stops with nothing written rather than part-way through.
 */
function lookAhead(plan: PreparedWavePlan, fs: DeclarationFs): WavePlanFailure | undefined {
  const inTheWay = declarationInTheWay(plan.stateDir, plan.request.wave, plan.records, fs, [manifestPath(plan.stateDir)]);
  if (inTheWay === undefined) return undefined;
  return failure('state-dir', describeInTheWay(inTheWay), plan.stateDir, { written: [], removed: [] }, { inTheWay });
}

/**
 * Runs the whole chain, looking at the files it will write or remove before its first write (lookAhead).
 * Every outcome is returned as data; nothing is thrown for bad input or I/O. (A writer that runs the two
 * halves apart, sync, looks at them itself, before it prepares anything: syncedWavePaths.)
 */
export function writeWavePlan(request: WavePlanRequest, fs: DeclarationFs): WavePlanResult {
  const locked = underPlanWriteLock(request.lockPlan, () => {
    // Written at once over what was just read: commitWavePlan's second reading of the manifest is for a
    // writer that does other work between the two halves.
    const prepared = prepareWavePlan(request, fs);
    if (!prepared.ok) return prepared;
    return lookAhead(prepared.prepared, fs) ?? writePrepared(prepared.prepared, fs);
  });
  return locked.ok ? locked.value : failure('state-dir', locked.problem, request.stateDir ?? '', { written: [], removed: [] });
}
