// The two declaration shapes on disk and their one writer.
//
//   <state-dir>/filescopes/wave-<N>/<agent-id>.json   per agent: a JSON array of entry strings
//   <state-dir>/filescopes/wave-<N>.scopes.json       per wave: a JSON array of {id, files} records
//
// The aggregate is the commit point. The writer removes it first, then writes every per-agent file,
// removes per-agent files of agents no longer in the wave, and writes the aggregate last; every
// write is atomic (the file system passed in guarantees it). So a reader that finds an aggregate
// always finds every per-agent file it names, with the same entries, and no stale one beside them.
import { isAbsolute, join, relative, sep } from 'node:path';
import { compileScopeEntry, normalizeScopeEntry, ScopeEntryError } from '../scope/scopeEntry';
import { promoteDirectory } from './scopeRecords';
import type { ScopeRecord } from '../scope/collisions';
import type { StateDirFs } from './stateDir';
import { MANIFEST_FILE_NAME } from './stateDir';
import { AGENT_ID_PATTERN, COORDINATOR_ID, isAgentId, MAX_AGENT_ID_LENGTH } from './agentId';

/** One agent's declaration: its id and its normalised entries (the scope engine's record). */
export type DeclaredRecord = ScopeRecord;

const AGENT_FILE_PATTERN = /^([A-Za-z0-9][A-Za-z0-9_-]*)\.json$/;
const WAVE_DIR_PATTERN = /^wave-([1-9][0-9]*)$/;
const WAVE_SIDECAR_PATTERN = /^wave-([1-9][0-9]*)\.scopes\.json$/;

/** A path builder was given an agent id or wave number that cannot name a file safely. */
export class DeclarationPathError extends Error {
  constructor(
    readonly reason: 'bad-wave' | 'bad-agent-id',
    message: string,
  ) {
    super(message);
    this.name = 'DeclarationPathError';
  }
}

/** Whether `wave` is a usable wave number (a positive safe integer). */
export function isWaveNumber(wave: unknown): wave is number {
  return typeof wave === 'number' && Number.isSafeInteger(wave) && wave >= 1;
}

function checkWave(wave: number): void {
  if (!isWaveNumber(wave)) throw new DeclarationPathError('bad-wave', `wave must be a positive integer, got ${String(wave)}`);
}

/** `<stateDir>/wave-scope.json` */
export function manifestPath(stateDir: string): string {
  return join(stateDir, MANIFEST_FILE_NAME);
}

/** `<stateDir>/filescopes` */
export function filescopesPath(stateDir: string): string {
  return join(stateDir, 'filescopes');
}

/** `<stateDir>/filescopes/wave-<N>`: the directory of the per-agent files. */
export function waveDirPath(stateDir: string, wave: number): string {
  checkWave(wave);
  return join(filescopesPath(stateDir), `wave-${wave}`);
}

/** `<stateDir>/filescopes/wave-<N>/<agentId>.json`. Throws DeclarationPathError for an id that is not a safe file name. */
export function agentScopePath(stateDir: string, wave: number, agentId: string): string {
  if (!isAgentId(agentId)) {
    throw new DeclarationPathError('bad-agent-id', `agent id ${JSON.stringify(agentId)} must match ${AGENT_ID_PATTERN.source}`);
  }
  return join(waveDirPath(stateDir, wave), `${agentId}.json`);
}

/** `<stateDir>/filescopes/wave-<N>.scopes.json`: the aggregate sidecar. */
export function waveSidecarPath(stateDir: string, wave: number): string {
  checkWave(wave);
  return join(filescopesPath(stateDir), `wave-${wave}.scopes.json`);
}

// ---------------------------------------------------------------------------------------------
// Validation of the input records

/** Machine-readable reason of a rejected declaration input. */
export type DeclarationInputReason =
  | 'not-json'
  | 'bad-wave'
  | 'not-array'
  | 'empty'
  | 'not-record'
  | 'missing-id'
  | 'bad-id'
  | 'duplicate-id'
  | 'coordinator-spelling'
  | 'bad-files'
  | 'bad-entry'
  | 'bad-new-file'
  | 'undeclared-new-file'
  | 'control-path';

/** One problem with the input; `message` names the record and entry. */
export interface DeclarationInputError {
  reason: DeclarationInputReason;
  message: string;
  /** The record's id (or `<unnamed#i>`). */
  record?: string;
  /** The entry as given. */
  entry?: string;
}

export interface RecordValidationOptions {
  /** Absolute repository root: absolute entries inside it become relative. */
  repoRoot?: string;
  ignoreCase?: boolean;
  /**
   * Known files of the repository. When given, a plain entry that names a directory with files
   * beneath it (and is not itself a file) is promoted to `dir/` (everything beneath).
   */
  files?: { has(path: string): boolean; hasFilesBeneath(dir: string): boolean };
  /** Paths the wave will create (`--new-file`): each must equal a declared plain entry after normalisation. */
  newFiles?: readonly string[];
  /**
   * The state directory relative to the repository root (`.claude`). Entries inside it are refused:
   * the declarations and the manifest are control state, never a wave's territory.
   */
  controlDir?: string;
}

export interface RecordValidation {
  /** The normalised records, in input order; present exactly when `errors` is empty. */
  records?: DeclaredRecord[];
  /** The normalised new-file paths. */
  newFiles: string[];
  errors: DeclarationInputError[];
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** The state directory relative to the repository root, `/`-separated; undefined without a root or outside it. */
export function controlDirOf(repoRoot: string | undefined, stateDir: string): string | undefined {
  if (repoRoot === undefined) return undefined;
  const rel = relative(repoRoot, stateDir);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

function isInsideControlDir(entry: string, controlDir: string | undefined, ignoreCase = false): boolean {
  if (controlDir === undefined || controlDir === '' || controlDir === '.' || controlDir.startsWith('..')) return false;
  const fold = (text: string) => (ignoreCase ? text.toLowerCase() : text);
  const dir = fold(controlDir.replace(/\\/g, '/').replace(/\/+$/, ''));
  const candidate = fold(entry);
  return candidate === dir || candidate.startsWith(`${dir}/`);
}

/**
 * Validates a whole declaration input before anything is written: a non-empty array of `{id, files}`,
 * ids matching AGENT_ID_PATTERN and unique ignoring case, at most one `coordinator` (exactly that
 * spelling), every entry valid under the scope grammar, every new file declared. Reports every problem.
 */
export function validateWaveRecords(input: unknown, options: RecordValidationOptions = {}): RecordValidation {
  const errors: DeclarationInputError[] = [];
  const grammar = { repoRoot: options.repoRoot, ignoreCase: options.ignoreCase };
  if (!Array.isArray(input)) {
    errors.push({ reason: 'not-array', message: 'the input must be a JSON array of {"id", "files"} records' });
    return { errors, newFiles: [] };
  }
  if (input.length === 0) {
    errors.push({ reason: 'empty', message: 'the input is an empty array: a wave declares at least one record' });
    return { errors, newFiles: [] };
  }
  const records: DeclaredRecord[] = [];
  const seen = new Map<string, { id: string; index: number }>();
  input.forEach((raw: unknown, index) => {
    const position = `record #${index + 1}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      errors.push({ reason: 'not-record', record: `<unnamed#${index}>`, message: `${position} is not an object {"id", "files"}` });
      return;
    }
    const candidate = raw as Record<string, unknown>;
    let name = `<unnamed#${index}>`;
    if (!('id' in candidate) || typeof candidate.id !== 'string' || candidate.id === '') {
      errors.push({ reason: 'missing-id', record: name, message: `${position} has no "id" (a non-empty string naming the agent)` });
    } else {
      const id = candidate.id;
      name = id;
      if (!isAgentId(id)) {
        errors.push({
          reason: 'bad-id',
          record: id,
          message:
            id.length > MAX_AGENT_ID_LENGTH
              ? `${position}: id ${quote(id.slice(0, 40))}... is longer than ${MAX_AGENT_ID_LENGTH} characters`
              : `${position}: id ${quote(id)} must match ${AGENT_ID_PATTERN.source} (letters, digits, "_" and "-"; it becomes a file name)`,
        });
      } else if (id !== COORDINATOR_ID && id.toLowerCase() === COORDINATOR_ID) {
        errors.push({
          reason: 'coordinator-spelling',
          record: id,
          message: `${position}: id ${quote(id)} must be spelled exactly "${COORDINATOR_ID}" for the coordinator's own edits`,
        });
      } else {
        const key = id.toLowerCase();
        const earlier = seen.get(key);
        if (earlier !== undefined) {
          errors.push({
            reason: 'duplicate-id',
            record: id,
            message:
              earlier.id === id
                ? `records #${earlier.index + 1} and #${index + 1} share the id ${quote(id)}: one record per agent`
                : `records #${earlier.index + 1} and #${index + 1} have ids ${quote(earlier.id)} and ${quote(id)}, which differ only in case (ids name files, so they must differ ignoring case)`,
          });
        } else seen.set(key, { id, index });
      }
    }
    if (!Array.isArray(candidate.files)) {
      errors.push({ reason: 'bad-files', record: name, message: `record ${quote(name)}: "files" must be an array of path strings` });
      return;
    }
    const files: string[] = [];
    candidate.files.forEach((entry: unknown, entryIndex) => {
      if (typeof entry !== 'string') {
        errors.push({
          reason: 'bad-entry',
          record: name,
          message: `record ${quote(name)}, entry #${entryIndex + 1}: must be a string, got ${entry === null ? 'null' : typeof entry}`,
        });
        return;
      }
      try {
        const spelling = normalizeScopeEntry(entry, grammar);
        const normalised = options.files === undefined ? spelling : promoteDirectory(spelling, options.files, grammar);
        if (isInsideControlDir(normalised, options.controlDir, options.ignoreCase)) {
          errors.push({
            reason: 'control-path',
            record: name,
            entry,
            message: `record ${quote(name)}, entry ${quote(entry)}: lies inside the state directory ${quote(`${options.controlDir}/`)}, which holds the wave's own declarations and manifest; no agent may own it`,
          });
          return;
        }
        if (!files.includes(normalised)) files.push(normalised);
      } catch (error) {
        if (!(error instanceof ScopeEntryError)) throw error;
        errors.push({ reason: 'bad-entry', record: name, entry, message: `record ${quote(name)}, entry ${quote(entry)}: ${error.message}` });
      }
    });
    records.push({ id: name, files });
  });

  const newFiles: string[] = [];
  for (const raw of options.newFiles ?? []) {
    let normalised: string;
    try {
      normalised = normalizeScopeEntry(raw, grammar);
    } catch (error) {
      if (!(error instanceof ScopeEntryError)) throw error;
      errors.push({ reason: 'bad-new-file', entry: raw, message: `--new-file ${quote(raw)}: ${error.message}` });
      continue;
    }
    const plain = compileScopeEntry(normalised, grammar).kind === 'plain';
    const same = (a: string, b: string) => (options.ignoreCase ? a.toLowerCase() === b.toLowerCase() : a === b);
    const declared = plain && records.some((record) => record.files.some((entry) => same(entry, normalised)));
    if (!declared) {
      errors.push({
        reason: 'undeclared-new-file',
        entry: raw,
        message: plain
          ? `--new-file ${quote(raw)} is not declared by any record: a new file must be one of the declared paths, spelled exactly`
          : `--new-file ${quote(raw)} is a pattern: name one file the wave will create`,
      });
      continue;
    }
    if (!newFiles.includes(normalised)) newFiles.push(normalised);
  }
  return errors.length > 0 ? { errors, newFiles } : { errors, newFiles, records };
}

/** A declared plain path that does not exist, and the agent that declares it. */
export interface MissingPath {
  agent: string;
  path: string;
}

/**
 * The plain (non-pattern) entries that name nothing on disk, excluding declared new files.
 * `exists` answers for a repository-relative path. For `--warn-missing`: a diagnostic, never a failure.
 */
export function findMissingPaths(
  records: readonly DeclaredRecord[],
  options: { newFiles?: readonly string[]; exists: (path: string) => boolean; ignoreCase?: boolean },
): MissingPath[] {
  const newFiles = new Set((options.newFiles ?? []).map((path) => (options.ignoreCase ? path.toLowerCase() : path)));
  const missing: MissingPath[] = [];
  for (const record of records) {
    for (const entry of record.files) {
      if (compileScopeEntry(entry, { ignoreCase: options.ignoreCase }).kind !== 'plain') continue;
      if (newFiles.has(options.ignoreCase ? entry.toLowerCase() : entry)) continue;
      if (!options.exists(entry)) missing.push({ agent: record.id, path: entry });
    }
  }
  return missing;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** The file system the writer and the readers need. Every write must be atomic (temp file, fsync, rename). */
export interface DeclarationFs extends StateDirFs {
  /** Atomically replaces `path` with `text`, creating parent directories. */
  writeAtomic(path: string, text: string): void;
  /** Removes the file; returns false when it did not exist. */
  remove(path: string): boolean;
  /** Names in the directory, or undefined when it does not exist. */
  listDir(path: string): string[] | undefined;
  /**
   * Makes every change so far durable (e.g. fsync of the directories written to). The writer calls it
   * before each commit point, so a power cut cannot persist the aggregate before its per-agent files.
   */
  sync?(): void;
}

/** Which part of the chain a file-system change belongs to (for crash tests and logs). */
export type WriteStepKind =
  | 'invalidate-aggregate'
  | 'agent-file'
  | 'stale-agent-file'
  | 'aggregate'
  | 'manifest-skeleton'
  | 'manifest';

/** One completed file-system change. */
export interface WriteStep {
  kind: WriteStepKind;
  action: 'write' | 'remove';
  path: string;
}

/** Called after each completed change; a test driver uses it to kill the process between steps. */
export type WriteObserver = (step: WriteStep) => void;

/** What the writer did. */
export interface DeclarationWrite {
  /** Files written, in order. */
  written: string[];
  /** Files removed, in order (the invalidated aggregate included). */
  removed: string[];
}

export type WriteDeclarationResult =
  | ({ ok: true } & DeclarationWrite)
  | ({ ok: false; reason: 'file-system'; message: string; path: string } & DeclarationWrite);

/** The text of a per-agent file. */
export function formatAgentScope(files: readonly string[]): string {
  return `${JSON.stringify(files, null, 2)}\n`;
}

/** The text of the aggregate sidecar. */
export function formatWaveSidecar(records: readonly DeclaredRecord[]): string {
  return `${JSON.stringify(records.map((record) => ({ id: record.id, files: record.files })), null, 2)}\n`;
}

/**
 * Writes both shapes of an already-validated wave declaration, in the safe order: invalidate the
 * aggregate, write every per-agent file, remove stale per-agent files, write the aggregate. A failure
 * is returned (with what was done so far), never thrown; the aggregate is then absent, so no reader
 * trusts the half-written wave.
 */
export function writeWaveDeclaration(
  stateDir: string,
  wave: number,
  records: readonly DeclaredRecord[],
  fs: DeclarationFs,
  options: { ignoreCase?: boolean; afterWrite?: WriteObserver } = {},
): WriteDeclarationResult {
  const done: DeclarationWrite = { written: [], removed: [] };
  let current = waveSidecarPath(stateDir, wave);
  const note = (kind: WriteStepKind, action: 'write' | 'remove', path: string) => {
    (action === 'write' ? done.written : done.removed).push(path);
    options.afterWrite?.({ kind, action, path });
  };
  try {
    const sidecar = waveSidecarPath(stateDir, wave);
    if (fs.remove(sidecar)) {
      fs.sync?.();
      note('invalidate-aggregate', 'remove', sidecar);
    }
    for (const record of records) {
      current = agentScopePath(stateDir, wave, record.id);
      fs.writeAtomic(current, formatAgentScope(record.files));
      note('agent-file', 'write', current);
    }
    const fold = (name: string) => (options.ignoreCase ? name.toLowerCase() : name);
    const currentIds = new Set(records.map((record) => fold(record.id)));
    const waveDir = waveDirPath(stateDir, wave);
    for (const name of (fs.listDir(waveDir) ?? []).sort()) {
      const match = AGENT_FILE_PATTERN.exec(name);
      if (match === null || currentIds.has(fold(match[1] ?? ''))) continue;
      current = join(waveDir, name);
      if (fs.remove(current)) note('stale-agent-file', 'remove', current);
    }
    fs.sync?.();
    current = sidecar;
    fs.writeAtomic(sidecar, formatWaveSidecar(records));
    fs.sync?.();
    note('aggregate', 'write', sidecar);
    return { ok: true, ...done };
  } catch (error) {
    return { ok: false, reason: 'file-system', message: `${current}: ${(error as Error).message}`, path: current, ...done };
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

/** How complete a wave's declaration on disk is. */
export type DeclarationStatus =
  /** Aggregate present and valid, every per-agent file present with the same entries, no stale one. */
  | 'complete'
  /** No aggregate: never written, or a write in progress (or interrupted). Per-agent files are not trusted. */
  | 'absent'
  /** The aggregate is not a JSON array of {id, files}. */
  | 'invalid'
  /** The aggregate is valid but a per-agent file is missing, differs, or a stale one lies beside them. */
  | 'inconsistent';

export interface WaveDeclaration {
  wave: number;
  status: DeclarationStatus;
  /** Absolute path of the aggregate sidecar. */
  sidecarPath: string;
  /** The aggregate's records, when it is valid (`complete` or `inconsistent`). */
  records?: DeclaredRecord[];
  /** Ids of the per-agent files found in the wave directory, sorted. */
  agentFiles: string[];
  /** Per-agent files the aggregate does not name (claims nobody re-verified). */
  strayAgentFiles: string[];
  /** For a person: every reason the wave is not `complete`. */
  problems: string[];
}

function parseEntryArray(text: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.every((entry) => typeof entry === 'string') ? parsed : undefined;
}

/** Parses an aggregate sidecar's text; undefined when it is not a JSON array of {id, files}. */
export function parseWaveSidecar(text: string): DeclaredRecord[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const records: DeclaredRecord[] = [];
  for (const item of parsed) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
    const { id, files } = item as Record<string, unknown>;
    if (typeof id !== 'string' || !Array.isArray(files) || !files.every((entry) => typeof entry === 'string')) return undefined;
    records.push({ id, files: [...(files as string[])] });
  }
  return records;
}

/** What one per-agent scope file holds. */
export type AgentScopeRead =
  | { found: true; path: string; entries: string[] }
  | { found: false; path?: string; reason: 'bad-agent-id' | 'bad-wave' | 'absent' | 'invalid' | 'unreadable'; message: string };

/** Reads `<stateDir>/filescopes/wave-<N>/<agentId>.json`. Never throws: a bad id or a missing file is data. */
export function readAgentScope(stateDir: string, wave: number, agentId: string, fs: StateDirFs): AgentScopeRead {
  let path: string;
  try {
    path = agentScopePath(stateDir, wave, agentId);
  } catch (error) {
    const pathError = error as DeclarationPathError;
    return { found: false, reason: pathError.reason, message: pathError.message };
  }
  let text: string | undefined;
  try {
    text = fs.readText(path);
  } catch (error) {
    return { found: false, path, reason: 'unreadable', message: `${path} cannot be read: ${(error as Error).message}` };
  }
  if (text === undefined) {
    return { found: false, path, reason: 'absent', message: `agent ${quote(agentId)} has no scope file in wave ${wave} (${path})` };
  }
  const entries = parseEntryArray(text);
  if (entries === undefined) {
    return { found: false, path, reason: 'invalid', message: `${path} is not a JSON array of path strings` };
  }
  return { found: true, path, entries };
}

/** Reads one wave's declaration and checks the two shapes against each other. Never throws on content. */
export function readWaveDeclaration(
  stateDir: string,
  wave: number,
  fs: DeclarationFs,
  options: { ignoreCase?: boolean } = {},
): WaveDeclaration {
  const sidecarPath = waveSidecarPath(stateDir, wave);
  const names = fs.listDir(waveDirPath(stateDir, wave)) ?? [];
  const agentFiles = names
    .map((name) => AGENT_FILE_PATTERN.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .sort();
  const base = { wave, sidecarPath, agentFiles, strayAgentFiles: [] as string[], problems: [] as string[] };
  let text: string | undefined;
  try {
    text = fs.readText(sidecarPath);
  } catch (error) {
    return { ...base, status: 'invalid', problems: [`${sidecarPath} cannot be read: ${(error as Error).message}`] };
  }
  if (text === undefined) {
    return {
      ...base,
      status: 'absent',
      problems: [
        agentFiles.length > 0
          ? `wave ${wave} has per-agent files but no aggregate ${sidecarPath}: the declaration is incomplete; re-run materialize`
          : `wave ${wave} has no aggregate ${sidecarPath}`,
      ],
    };
  }
  const records = parseWaveSidecar(text);
  if (records === undefined) {
    return { ...base, status: 'invalid', problems: [`${sidecarPath} is not a JSON array of {"id", "files"} records`] };
  }
  const problems: string[] = [];
  const fold = (name: string) => (options.ignoreCase ? name.toLowerCase() : name);
  const declared = new Set(records.map((record) => fold(record.id)));
  for (const record of records) {
    const read = readAgentScope(stateDir, wave, record.id, fs);
    if (!read.found) problems.push(read.message);
    else if (JSON.stringify(read.entries) !== JSON.stringify(record.files)) {
      problems.push(`${read.path} differs from agent ${quote(record.id)}'s record in ${sidecarPath}`);
    }
  }
  const strayAgentFiles = agentFiles.filter((id) => !declared.has(fold(id)));
  for (const id of strayAgentFiles) problems.push(`stale per-agent file for ${quote(id)}: the aggregate does not declare it`);
  return { ...base, strayAgentFiles, records, status: problems.length === 0 ? 'complete' : 'inconsistent', problems };
}

/** Wave numbers that have anything on disk (an aggregate or a per-agent directory), ascending. */
export function listDeclaredWaves(stateDir: string, fs: DeclarationFs): number[] {
  const waves = new Set<number>();
  for (const name of fs.listDir(filescopesPath(stateDir)) ?? []) {
    const match = WAVE_SIDECAR_PATTERN.exec(name) ?? WAVE_DIR_PATTERN.exec(name);
    const wave = match === null ? NaN : Number(match[1]);
    if (isWaveNumber(wave)) waves.add(wave);
  }
  return [...waves].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------
// The writer as one call

export interface MaterializeRequest extends RecordValidationOptions {
  /** Absolute state directory. */
  stateDir: string;
  wave: number;
  /** The parsed input (validated here). */
  records: unknown;
  afterWrite?: WriteObserver;
}

export type MaterializeResult =
  | ({ ok: true; wave: number; stateDir: string; records: DeclaredRecord[]; newFiles: string[] } & DeclarationWrite)
  | { ok: false; reason: 'invalid-input'; errors: DeclarationInputError[] }
  | ({ ok: false; reason: 'file-system'; message: string; path: string } & DeclarationWrite);

/**
 * Validates the whole input, then writes both shapes (see writeWaveDeclaration). On invalid input
 * nothing is written.
 */
export function materializeWave(request: MaterializeRequest, fs: DeclarationFs): MaterializeResult {
  if (!isWaveNumber(request.wave)) {
    return { ok: false, reason: 'invalid-input', errors: [{ reason: 'bad-wave', message: `wave must be a positive integer, got ${String(request.wave)}` }] };
  }
  const validation = validateWaveRecords(request.records, {
    ...request,
    controlDir: request.controlDir ?? controlDirOf(request.repoRoot, request.stateDir),
  });
  if (validation.records === undefined) return { ok: false, reason: 'invalid-input', errors: validation.errors };
  const write = writeWaveDeclaration(request.stateDir, request.wave, validation.records, fs, {
    ignoreCase: request.ignoreCase,
    afterWrite: request.afterWrite,
  });
  if (!write.ok) return write;
  return {
    ok: true,
    wave: request.wave,
    stateDir: request.stateDir,
    records: validation.records,
    newFiles: validation.newFiles,
    written: write.written,
    removed: write.removed,
  };
}
