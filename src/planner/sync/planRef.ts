// The published plan: one commit on `refs/wave-scope/plan` of the shared remote, on its own history
// (never a branch anybody works on). Its tree:
//
//   wave-scope-plan.json                                   {"version": 1}: marks the tree as ours
//   claims.json                                            {"version": 1, "claims": [...]}: who holds which wave now
//   clones/<clone>/waves/<N>/published.json                 who published the wave, when, with which case rule
//   clones/<clone>/waves/<N>/wave-scope.json                the manifest as its clone wrote it
//   clones/<clone>/waves/<N>/filescopes/wave-<N>.scopes.json          the aggregate
//   clones/<clone>/waves/<N>/filescopes/wave-<N>/<agent-id>.json      the per-agent files
//
// So `clones/<clone>/waves/<N>/` is a state directory holding exactly one wave, read with the same readers
// as a local one. A plan stays after its claim ends (CI verifies branches of finished waves) until its
// clone publishes the same wave number again, or it is unclaimed and older than PLAN_RETENTION_MS.
// Everything here works on a map of paths to texts; git reaches it through src/planner/sync/publish.ts.
import { isAgentId } from '../plan/agentId';
import type { DeclaredRecord } from '../plan/declarationInput';
import { agentIdOfFileName, isWaveNumber, relativeAgentScopePath, relativeWaveDirPath, relativeWaveSidecarPath } from '../plan/declarationPaths';
import { formatAgentScope, formatWaveSidecar, readWaveDeclaration } from '../plan/declarationStore';
import type { DeclarationFs } from '../plan/declarationStore';
import { MANIFEST_FILE_NAME } from '../plan/stateDirNames';
import { formatManifest, validateManifest } from '../plan/manifest';
import type { WaveManifest } from '../plan/manifest';
import { normalizeScopeEntry, ScopeEntryError } from '../scope/scopeEntry';
import { isClaimLive, isCloneId, parseClaim } from './claims';
import type { Claim } from './claims';

/** The remote every sync command uses unless told otherwise. */
export const DEFAULT_REMOTE = 'origin';

/** The ref the plan is published on, on the shared remote. */
export const PLAN_REF = 'refs/wave-scope/plan';

/** Version of the plan tree's layout; a reader refuses any other. */
export const PLAN_FORMAT_VERSION = 1;

/** The marker file at the tree's root. */
export const PLAN_MARKER_FILE = 'wave-scope-plan.json';

/** The claims file at the tree's root. */
export const CLAIMS_FILE = 'claims.json';

/** Beside each published wave's state directory files: who published it, when, how. */
export const PUBLISHED_INFO_FILE = 'published.json';

/** An unclaimed plan older than this (by `publishedAt`) is dropped from the tree on the next publish: 30 days. */
export const PLAN_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Where this clone keeps its copy of a remote's plan ref (outside refs/heads and refs/remotes: not a branch). */
export function trackingRefOf(remote: string): string {
  return `refs/wave-scope/remotes/${remote}/plan`;
}

/** A remote name Wave Scope accepts: a configured remote's name (it becomes part of a ref name). */
export function isRemoteName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) && !name.includes('..') && !name.endsWith('.lock');
}

/** The directory of one published wave inside the tree. */
export function publishedWaveDir(clone: string, wave: number): string {
  return `clones/${clone}/waves/${wave}`;
}

/** The files of a plan commit: tree path (`/`-separated) → text. */
export type PlanFiles = ReadonlyMap<string, string>;

/** Who published a wave and how. */
export interface PublishedWaveInfo {
  clone: string;
  cloneName: string;
  wave: number;
  /** ISO 8601. */
  publishedAt: string;
  /** The coordinator's session, or null. */
  session: string | null;
  /** The publishing clone's `core.ignorecase`. */
  ignoreCase: boolean;
  /** The publishing checkout's HEAD commit when it published (what the wave was planned against), or null. */
  head: string | null;
}

/** One wave as found on the plan ref. */
export interface PublishedWave {
  clone: string;
  wave: number;
  /** Its directory in the tree. */
  dir: string;
  /** Present when published.json is valid. */
  info?: PublishedWaveInfo;
  /** Present when the manifest is valid and names this wave. */
  manifest?: WaveManifest;
  /** Present when the declaration is complete and every entry is in normal form. */
  records?: DeclaredRecord[];
  /** Every reason the wave cannot be used (empty when info, manifest and records are all present). */
  problems: string[];
}

/** The plan ref's content, decoded. */
export interface DecodedPlan {
  /** Every claim in claims.json (live or not), in file order. */
  claims: Claim[];
  waves: PublishedWave[];
  /** Problems with the tree as a whole (marker, claims file, stray paths): nothing in it can be trusted then. */
  problems: string[];
}

/** The empty plan (the ref does not exist yet). */
export function emptyPlan(): DecodedPlan {
  return { claims: [], waves: [], problems: [] };
}

/** A read-only DeclarationFs over the tree, so the state-directory readers read a published wave. */
export function planTreeFs(files: PlanFiles): DeclarationFs {
  const key = (path: string) => path.replace(/\\/g, '/');
  const refuse = () => {
    throw new Error('the published plan is read-only');
  };
  return {
    readText: (path) => files.get(key(path)),
    listDir(path) {
      const prefix = `${key(path).replace(/\/+$/, '')}/`;
      const names = new Set<string>();
      for (const file of files.keys()) {
        if (file.startsWith(prefix)) names.add(file.slice(prefix.length).split('/', 1)[0] as string);
      }
      return names.size === 0 ? undefined : [...names];
    },
    writeAtomic: refuse,
    remove: refuse,
  };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseInfo(value: unknown, clone: string, wave: number): PublishedWaveInfo | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  if (raw.version !== PLAN_FORMAT_VERSION || raw.clone !== clone || raw.wave !== wave) return undefined;
  if (typeof raw.cloneName !== 'string' || typeof raw.publishedAt !== 'string' || Number.isNaN(Date.parse(raw.publishedAt))) return undefined;
  if (!(raw.session === null || typeof raw.session === 'string')) return undefined;
  if (typeof raw.ignoreCase !== 'boolean' || !(raw.head === null || (typeof raw.head === 'string' && /^[0-9a-f]{40,64}$/.test(raw.head)))) return undefined;
  return { clone, cloneName: raw.cloneName, wave, publishedAt: raw.publishedAt, session: raw.session, ignoreCase: raw.ignoreCase, head: raw.head };
}

const WAVE_PATH = /^clones\/([^/]+)\/waves\/([1-9][0-9]*)\/(.+)$/;

/** The published wave a plan-tree path lies in (`clones/<clone>/waves/<N>/…`); undefined for any other path. */
export function waveOfPlanPath(path: string): { clone: string; wave: number } | undefined {
  const match = WAVE_PATH.exec(path);
  return match === null ? undefined : { clone: match[1] as string, wave: Number(match[2]) };
}

/**
 * How many files a sync of the largest wave in a plan's tree (its paths) writes into an empty state
 * directory: each of that wave's files on the plan ref but its published.json (its agents' files, the
 * aggregate, the manifest). 0 for a tree without waves. A guess at the next sync's writes for a clone that
 * saw this tree last (sync makes that many files ahead, while git fetches).
 */
export function largestWaveWrite(paths: Iterable<string>): number {
  const files = new Map<string, number>();
  for (const path of paths) {
    const match = WAVE_PATH.exec(path);
    if (match === null || match[3] === PUBLISHED_INFO_FILE) continue;
    const dir = `${match[1]}/${match[2]}`;
    files.set(dir, (files.get(dir) ?? 0) + 1);
  }
  return Math.max(0, ...files.values());
}

/**
 * Whether `rest` (a path inside a published wave's directory) is one of the files publish writes there:
 * the publication record, the manifest, the aggregate, or a per-agent file named by an agent id. Anything
 * else (another name, a `..` segment, a file below an agent's) is not a plan Wave Scope wrote, and a tree
 * holding it could not be written back by the next publish.
 */
function isPublishedWaveFile(rest: string, wave: number): boolean {
  if (rest === PUBLISHED_INFO_FILE || rest === MANIFEST_FILE_NAME || rest === relativeWaveSidecarPath(wave)) return true;
  const agents = `${relativeWaveDirPath(wave)}/`;
  return rest.startsWith(agents) && agentIdOfFileName(rest.slice(agents.length)) !== undefined;
}

function decodeWave(files: PlanFiles, clone: string, wave: number): PublishedWave {
  const dir = publishedWaveDir(clone, wave);
  const problems: string[] = [];
  const info = parseInfo(parseJson(files.get(`${dir}/${PUBLISHED_INFO_FILE}`)), clone, wave);
  if (info === undefined) problems.push(`${dir}/${PUBLISHED_INFO_FILE} is missing or not a valid record of the publication`);
  const manifestText = files.get(`${dir}/${MANIFEST_FILE_NAME}`);
  const validation = manifestText === undefined ? undefined : validateManifest(parseJson(manifestText));
  let manifest = validation?.manifest;
  if (manifest === undefined) problems.push(`${dir}/${MANIFEST_FILE_NAME} is missing or not a valid manifest`);
  else if (manifest.wave !== wave) {
    problems.push(`${dir}/${MANIFEST_FILE_NAME} names wave ${manifest.wave}, not ${wave}`);
    manifest = undefined;
  }
  const declaration = readWaveDeclaration(dir, wave, planTreeFs(files), { ignoreCase: info?.ignoreCase });
  let records = declaration.status === 'complete' ? declaration.records : undefined;
  if (records === undefined) problems.push(...declaration.problems.map((problem) => `published wave ${wave} of clone ${clone}: ${problem}`));
  else {
    for (const record of records) {
      const refused = isAgentId(record.id) ? record.files.map(refusalOfEntry).find((refusal) => refusal !== undefined) : undefined;
      const bad = refused !== undefined || !isAgentId(record.id) || record.files.some((entry) => !isNormalEntry(entry));
      if (bad) {
        problems.push(
          refused !== undefined
            ? `${dir}: agent ${JSON.stringify(record.id)}, entry ${JSON.stringify(refused.entry)}: ${refused.message}`
            : `${dir}: agent ${JSON.stringify(record.id)} has an id or an entry that is not in normal form`,
        );
        records = undefined;
        break;
      }
    }
  }
  return { clone, wave, dir, ...(info ? { info } : {}), ...(manifest ? { manifest } : {}), ...(records ? { records } : {}), problems };
}

/** The grammar's refusal of `entry` (its message names the entry), or undefined when the grammar reads it. */
function refusalOfEntry(entry: string): ScopeEntryError | undefined {
  try {
    normalizeScopeEntry(entry);
    return undefined;
  } catch (error) {
    if (error instanceof ScopeEntryError) return error;
    throw error;
  }
}

function isNormalEntry(entry: string): boolean {
  try {
    return normalizeScopeEntry(entry) === entry;
  } catch {
    return false;
  }
}

/** Which published wave: the clone that published it, and its number. */
export interface WaveKey {
  clone: string;
  wave: number;
}

export interface DecodeOptions {
  /**
   * The waves to decode (given the plan's claims); the others are left out of `waves`. The tree as a whole
   * (marker, claims, every path) is checked all the same. Default: every wave.
   */
  wanted?: (key: WaveKey, claims: readonly Claim[]) => boolean;
}

/**
 * Decodes a plan commit's files. Never throws: what cannot be used is reported, per wave (`problems`) or
 * for the whole tree (`DecodedPlan.problems`, when the marker, the claims file or a path is not ours).
 * An empty map is the empty plan.
 */
export function decodePlan(files: PlanFiles, options: DecodeOptions = {}): DecodedPlan {
  if (files.size === 0) return emptyPlan();
  const problems: string[] = [];
  const marker = parseJson(files.get(PLAN_MARKER_FILE)) as { version?: unknown } | undefined;
  if (typeof marker !== 'object' || marker === null) {
    problems.push(`the plan ref has no ${PLAN_MARKER_FILE}: it was not written by Wave Scope`);
  } else if (marker.version !== PLAN_FORMAT_VERSION) {
    problems.push(`the plan ref has format version ${JSON.stringify(marker.version)}; this Wave Scope reads version ${PLAN_FORMAT_VERSION} (upgrade it)`);
  }
  const claims: Claim[] = [];
  const claimsDoc = parseJson(files.get(CLAIMS_FILE)) as { version?: unknown; claims?: unknown } | undefined;
  if (typeof claimsDoc !== 'object' || claimsDoc === null || claimsDoc.version !== PLAN_FORMAT_VERSION || !Array.isArray(claimsDoc.claims)) {
    problems.push(`${CLAIMS_FILE} is missing or not {"version": 1, "claims": [...]}`);
  } else {
    claimsDoc.claims.forEach((raw: unknown, index) => {
      const claim = parseClaim(raw);
      if (claim === undefined) problems.push(`${CLAIMS_FILE}: claim #${index + 1} is not a valid claim`);
      else claims.push(claim);
    });
  }
  const waveKeys = new Map<string, WaveKey>();
  for (const path of files.keys()) {
    if (path === PLAN_MARKER_FILE || path === CLAIMS_FILE) continue;
    const match = WAVE_PATH.exec(path);
    const clone = match?.[1];
    const wave = Number(match?.[2]);
    if (match === null || !isCloneId(clone) || !isWaveNumber(wave) || !isPublishedWaveFile(match[3] as string, wave)) {
      problems.push(`unexpected path on the plan ref: ${path}`);
      continue;
    }
    waveKeys.set(`${clone}/${wave}`, { clone, wave });
  }
  const wanted = options.wanted ?? (() => true);
  const waves = [...waveKeys.values()]
    .filter((key) => wanted(key, claims))
    .sort((a, b) => (a.clone < b.clone ? -1 : a.clone > b.clone ? 1 : a.wave - b.wave))
    .map(({ clone, wave }) => decodeWave(files, clone, wave));
  return { claims, waves, problems };
}

/** The published wave `wave` of `clone`, if the tree holds it. */
export function findPublishedWave(plan: DecodedPlan, clone: string, wave: number): PublishedWave | undefined {
  return plan.waves.find((candidate) => candidate.clone === clone && candidate.wave === wave);
}

/** The local plan a clone publishes: the manifest and the declaration of the wave it names. */
export interface WaveToPublish {
  info: PublishedWaveInfo;
  manifest: WaveManifest;
  records: readonly DeclaredRecord[];
}

/** The files of one published wave, keyed by tree path. */
export function encodePublishedWave(wave: WaveToPublish): Map<string, string> {
  const dir = publishedWaveDir(wave.info.clone, wave.info.wave);
  const files = new Map<string, string>();
  const info = { version: PLAN_FORMAT_VERSION, ...wave.info };
  files.set(`${dir}/${PUBLISHED_INFO_FILE}`, `${JSON.stringify(info, null, 2)}\n`);
  files.set(`${dir}/${MANIFEST_FILE_NAME}`, formatManifest(wave.manifest));
  files.set(`${dir}/${relativeWaveSidecarPath(wave.info.wave)}`, formatWaveSidecar(wave.records));
  for (const record of wave.records) files.set(`${dir}/${relativeAgentScopePath(wave.info.wave, record.id)}`, formatAgentScope(record.files));
  return files;
}

/** The text of claims.json. */
export function formatClaims(claims: readonly Claim[]): string {
  return `${JSON.stringify({ version: PLAN_FORMAT_VERSION, claims }, null, 2)}\n`;
}

/** What a change to the plan does: which claims stand afterwards, and which waves are written or dropped. */
export interface PlanChange {
  claims: readonly Claim[];
  /** Waves to write (replacing whatever the tree held for the same clone and wave). */
  write?: readonly WaveToPublish[];
}

/**
 * The files of the next plan commit: the current files, with the waves of `change.write` replaced, the
 * claims replaced, and every unclaimed wave older than PLAN_RETENTION_MS dropped. Files of other clones'
 * waves are carried over byte for byte.
 */
export function nextPlanFiles(current: PlanFiles, decoded: DecodedPlan, change: PlanChange, now: number): Map<string, string> {
  const replaced = new Set((change.write ?? []).map((wave) => `${publishedWaveDir(wave.info.clone, wave.info.wave)}/`));
  const claimed = new Set(change.claims.filter((claim) => isClaimLive(claim, now)).map((claim) => `${publishedWaveDir(claim.clone, claim.wave)}/`));
  for (const wave of decoded.waves) {
    const published = wave.info === undefined ? NaN : Date.parse(wave.info.publishedAt);
    const dir = `${wave.dir}/`;
    if (!claimed.has(dir) && !Number.isNaN(published) && now - published > PLAN_RETENTION_MS) replaced.add(dir);
  }
  const next = new Map<string, string>();
  for (const [path, text] of current) {
    if (path === CLAIMS_FILE || path === PLAN_MARKER_FILE) continue;
    const dir = WAVE_PATH.exec(path) === null ? undefined : path.split('/').slice(0, 4).join('/') + '/';
    if (dir !== undefined && replaced.has(dir)) continue;
    next.set(path, text);
  }
  for (const wave of change.write ?? []) for (const [path, text] of encodePublishedWave(wave)) next.set(path, text);
  next.set(PLAN_MARKER_FILE, `${JSON.stringify({ version: PLAN_FORMAT_VERSION })}\n`);
  next.set(CLAIMS_FILE, formatClaims(change.claims));
  // Tree order does not matter to git (it sorts), but a stable map keeps tests and logs readable.
  return new Map([...next].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
