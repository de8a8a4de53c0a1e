// The two declaration shapes on disk, their one writer and their readers.
//
//   <state-dir>/filescopes/wave-<N>/<agent-id>.json   per agent: a JSON array of entry strings
//   <state-dir>/filescopes/wave-<N>.scopes.json       per wave: a JSON array of {id, files} records
//
// The aggregate is the commit point. The writer removes it first, then writes every per-agent file,
// removes per-agent files of agents no longer in the wave, and writes the aggregate last; every
// write is atomic (the file system passed in guarantees it). So a reader that finds an aggregate
// always finds every per-agent file it names, with the same entries, and no stale one beside them.
import { join } from 'node:path';
import { foldCase } from '../scope/scopeEntry';
import type { StateDirFs } from './stateDir';
import { agentIdOfFileName, agentIdProblem, agentScopePath, filescopesPath, waveDirPath, waveNumberProblem, waveOfFilescopesName, waveSidecarPath } from './declarationPaths';
import { controlDirOf, validateWaveRecords } from './declarationInput';
import { parseJsonText } from './jsonText';
import type { DeclarationInputError, DeclaredRecord, RecordValidationOptions } from './declarationInput';

function quote(text: string): string {
  return JSON.stringify(text);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * What stands where a writer would write or remove a file, or on its way there, that the writer refuses
 * (DeclarationFs.findInTheWay).
 */
export interface InTheWay {
  /** Absolute path of the entry: a file to write or remove, or a directory on the way to one. */
  path: string;
  /**
   * `symlink`: a symbolic link; `not-a-file`: anything but a regular file where a file goes; `not-a-directory`:
   * anything but a directory on the way; `outside-root`: the path is not inside the writer's confinement root.
   */
  found: 'symlink' | 'not-a-file' | 'not-a-directory' | 'outside-root';
}

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
  /**
   * Looks, without writing, at `paths` (files a writer is about to write or remove) and the directories on
   * their way, and answers the first entry writeAtomic or remove would refuse there (a symbolic link, or
   * anything but a directory or a regular file); undefined when there is none. The writers look before their
   * first write, so such an entry stops them with nothing written; writeAtomic and remove still refuse one
   * planted after the look. A file system without it is not looked at ahead.
   */
  findInTheWay?(paths: readonly string[]): InTheWay | undefined;
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

/** Why a write failed: the file system refused a step, or a wave number or record id cannot name a file. */
export type WriteFailureReason = 'file-system' | 'bad-path';

export type WriteDeclarationResult =
  | ({ ok: true } & DeclarationWrite)
  | ({ ok: false; reason: WriteFailureReason; message: string; path: string } & DeclarationWrite);

const IN_THE_WAY: Readonly<Record<InTheWay['found'], string>> = {
  symlink: 'a symbolic link',
  'not-a-file': 'not a regular file',
  'not-a-directory': 'not a directory',
  'outside-root': 'outside the checkout',
};

/** What `found` is, as the rest of a sentence "X is …": `a symbolic link`, `not a regular file`. */
export function inTheWayWords(found: InTheWay['found']): string {
  return IN_THE_WAY[found];
}

/** A writer's refusal of `inTheWay`, for a result's message. */
export function describeInTheWay(inTheWay: InTheWay): string {
  return `${inTheWay.path} is ${inTheWayWords(inTheWay.found)} where the plan's files go: it is never written through or replaced; nothing was written`;
}

/** The text of a per-agent file. */
export function formatAgentScope(files: readonly string[]): string {
  return `${JSON.stringify(files, null, 2)}\n`;
}

/** The text of the aggregate sidecar. */
export function formatWaveSidecar(records: readonly DeclaredRecord[]): string {
  return `${JSON.stringify(records.map((record) => ({ id: record.id, files: record.files })), null, 2)}\n`;
}

/** A file of a wave's declaration with the exact text the writer gives it. */
export interface DeclarationFile {
  path: string;
  text: string;
}

/**
 * The files writeWaveDeclaration writes for `records`, with their texts: one per agent, in the records'
 * order, then the aggregate. A caller that prepares the writes ahead (src/node/stagedWrites.ts) asks here,
 * so what it prepares is exactly what the writer asks for.
 */
export function declarationFiles(stateDir: string, wave: number, records: readonly DeclaredRecord[]): { agentFiles: DeclarationFile[]; aggregate: DeclarationFile } {
  return {
    agentFiles: records.map((record) => ({ path: agentScopePath(stateDir, wave, record.id), text: formatAgentScope(record.files) })),
    aggregate: { path: waveSidecarPath(stateDir, wave), text: formatWaveSidecar(records) },
  };
}

/** The ids of the per-agent files in `wave`'s directory now, sorted (none when it does not exist). */
export function agentFilesIn(stateDir: string, wave: number, fs: StateDirFs & Pick<DeclarationFs, 'listDir'>): string[] {
  return (fs.listDir(waveDirPath(stateDir, wave)) ?? [])
    .map(agentIdOfFileName)
    .filter((id): id is string => id !== undefined)
    .sort();
}

/**
 * Every file writeWaveDeclaration may write or remove writing `records` as `wave`'s declaration, when the
 * wave's directory holds the per-agent files of the ids `present` (agentFilesIn): the aggregate, the
 * per-agent file of each record, and that of each id present (removed when no record names it). The
 * directories on their way are the state directory, its filescopes/ and the wave's directory. Every id
 * must be a valid agent id.
 */
export function declarationWritePaths(stateDir: string, wave: number, records: readonly { id: string }[], present: readonly string[]): string[] {
  const ids = new Set([...records.map((record) => record.id), ...present]);
  return [waveSidecarPath(stateDir, wave), ...[...ids].map((id) => agentScopePath(stateDir, wave, id))];
}

/**
 * What stands in the way of writing `records` as `wave`'s declaration (declarationWritePaths, with `also`:
 * other files the caller writes or removes, such as the manifest), found by `fs` before anything is written.
 * Undefined when nothing does, and when `fs` cannot look ahead or the look itself fails: the writes then
 * meet and report it themselves.
 */
export function declarationInTheWay(stateDir: string, wave: number, records: readonly { id: string }[], fs: DeclarationFs, also: readonly string[] = []): InTheWay | undefined {
  if (fs.findInTheWay === undefined) return undefined;
  try {
    return fs.findInTheWay([...also, ...declarationWritePaths(stateDir, wave, records, agentFilesIn(stateDir, wave, fs))]);
  } catch {
    return undefined;
  }
}

/**
 * Writes both shapes of an already-validated wave declaration, in the safe order: invalidate the
 * aggregate, write every per-agent file, remove stale per-agent files, write the aggregate. A failure
 * is returned (with what was done so far), never thrown; the aggregate is then absent, so no reader
 * trusts the half-written wave. A wave number or record id that cannot name a file fails before
 * anything is touched.
 */
export function writeWaveDeclaration(
  stateDir: string,
  wave: number,
  records: readonly DeclaredRecord[],
  fs: DeclarationFs,
  options: { ignoreCase?: boolean; afterWrite?: WriteObserver } = {},
): WriteDeclarationResult {
  const done: DeclarationWrite = { written: [], removed: [] };
  const pathProblem = waveNumberProblem(wave) ?? records.map((record) => agentIdProblem(record.id)).find((problem) => problem !== undefined);
  if (pathProblem !== undefined) return { ok: false, reason: 'bad-path', message: pathProblem, path: stateDir, ...done };
  const files = declarationFiles(stateDir, wave, records);
  const sidecar = files.aggregate.path;
  let current = sidecar;
  const note = (kind: WriteStepKind, action: 'write' | 'remove', path: string) => {
    (action === 'write' ? done.written : done.removed).push(path);
    options.afterWrite?.({ kind, action, path });
  };
  try {
    if (fs.remove(sidecar)) {
      fs.sync?.();
      note('invalidate-aggregate', 'remove', sidecar);
    }
    for (const file of files.agentFiles) {
      current = file.path;
      fs.writeAtomic(file.path, file.text);
      note('agent-file', 'write', file.path);
    }
    const fold = (name: string) => (options.ignoreCase ? foldCase(name) : name);
    const currentIds = new Set(records.map((record) => fold(record.id)));
    const waveDir = waveDirPath(stateDir, wave);
    for (const name of (fs.listDir(waveDir) ?? []).sort()) {
      const id = agentIdOfFileName(name);
      if (id === undefined || currentIds.has(fold(id))) continue;
      current = join(waveDir, name);
      if (fs.remove(current)) note('stale-agent-file', 'remove', current);
    }
    fs.sync?.();
    current = sidecar;
    fs.writeAtomic(sidecar, files.aggregate.text);
    fs.sync?.();
    note('aggregate', 'write', sidecar);
    return { ok: true, ...done };
  } catch (error) {
    return { ok: false, reason: 'file-system', message: `${current}: ${messageOf(error)}`, path: current, ...done };
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

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** Parses a per-agent file's text; undefined when it is not a JSON array of strings. */
function parseAgentScope(text: string): string[] | undefined {
  const parsed = parseJsonText(text);
  return parsed.ok && isStringArray(parsed.value) ? parsed.value : undefined;
}

/** Parses an aggregate sidecar's text; undefined when it is not a JSON array of {id, files}. */
export function parseWaveSidecar(text: string): DeclaredRecord[] | undefined {
  const parsed = parseJsonText(text);
  if (!parsed.ok || !Array.isArray(parsed.value)) return undefined;
  const records: DeclaredRecord[] = [];
  for (const item of parsed.value as unknown[]) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
    const { id, files } = item as Record<string, unknown>;
    if (typeof id !== 'string' || !isStringArray(files)) return undefined;
    records.push({ id, files: [...files] });
  }
  return records;
}

/** What one per-agent scope file holds. */
export type AgentScopeRead =
  | { found: true; path: string; entries: string[] }
  | { found: false; path?: string; reason: 'bad-agent-id' | 'bad-wave' | 'absent' | 'invalid' | 'unreadable'; message: string };

/** Reads `<stateDir>/filescopes/wave-<N>/<agentId>.json`. Never throws: a bad id or a missing file is data. */
export function readAgentScope(stateDir: string, wave: number, agentId: string, fs: StateDirFs): AgentScopeRead {
  const waveProblem = waveNumberProblem(wave);
  if (waveProblem !== undefined) return { found: false, reason: 'bad-wave', message: waveProblem };
  const idProblem = agentIdProblem(agentId);
  if (idProblem !== undefined) return { found: false, reason: 'bad-agent-id', message: idProblem };
  const path = agentScopePath(stateDir, wave, agentId);
  let text: string | undefined;
  try {
    text = fs.readText(path);
  } catch (error) {
    return { found: false, path, reason: 'unreadable', message: `${path} cannot be read: ${messageOf(error)}` };
  }
  if (text === undefined) {
    return { found: false, path, reason: 'absent', message: `agent ${quote(agentId)} has no scope file in wave ${wave} (${path})` };
  }
  const entries = parseAgentScope(text);
  if (entries === undefined) {
    return { found: false, path, reason: 'invalid', message: `${path} is not a JSON array of path strings` };
  }
  return { found: true, path, entries };
}

/**
 * A read-only view of `fs` that reads each path once: every later read of it is answered from that first
 * reading (the text, its absence, or the failure). A run of checks over one state directory (sync's: is
 * the wave already there, would a plan be lost, what is there now) then decides on one reading of it,
 * consistent across the checks, instead of reading every file once per check. It refuses to write, so a
 * writer cannot go through it and then read back its own stale answers.
 */
export function readOnceView(fs: DeclarationFs): DeclarationFs {
  const texts = remembered<string | undefined>();
  const listings = remembered<string[] | undefined>();
  const readOnly = (): never => {
    throw new Error('a read-once view cannot write: write through the file system it views');
  };
  return {
    readText: (path) => texts(path, () => fs.readText(path)),
    listDir: (path) => {
      const names = listings(path, () => fs.listDir(path));
      return names === undefined ? undefined : [...names];
    },
    writeAtomic: readOnly,
    remove: readOnly,
  };
}

/** A function that answers each key with the first answer `ask` gave for it: the value, or the failure again. */
function remembered<T>(): (key: string, ask: () => T) => T {
  const answers = new Map<string, { value: T } | { error: unknown }>();
  return (key, ask) => {
    let answer = answers.get(key);
    if (answer === undefined) {
      try {
        answer = { value: ask() };
      } catch (error) {
        answer = { error };
      }
      answers.set(key, answer);
    }
    if ('error' in answer) throw answer.error;
    return answer.value;
  };
}

/** Reads one wave's declaration and checks the two shapes against each other. Never throws on content. */
export function readWaveDeclaration(
  stateDir: string,
  wave: number,
  fs: DeclarationFs,
  options: { ignoreCase?: boolean } = {},
): WaveDeclaration {
  const sidecarPath = waveSidecarPath(stateDir, wave);
  const agentFiles = agentFilesIn(stateDir, wave, fs);
  const base = { wave, sidecarPath, agentFiles, strayAgentFiles: [] as string[], problems: [] as string[] };
  let text: string | undefined;
  try {
    text = fs.readText(sidecarPath);
  } catch (error) {
    return { ...base, status: 'invalid', problems: [`${sidecarPath} cannot be read: ${messageOf(error)}`] };
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
  const fold = (name: string) => (options.ignoreCase ? foldCase(name) : name);
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
    const wave = waveOfFilescopesName(name);
    if (wave !== undefined) waves.add(wave);
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
  /** An entry the writer refuses stands where it would write or remove a file, or on the way: nothing was written. */
  | { ok: false; reason: 'in-the-way'; inTheWay: InTheWay; message: string }
  | ({ ok: false; reason: WriteFailureReason; message: string; path: string } & DeclarationWrite);

/**
 * Validates the whole input, looks at the files it will write or remove (declarationInTheWay), then writes
 * both shapes (see writeWaveDeclaration). On invalid input, or an entry in the way, nothing is written.
 */
export function materializeWave(request: MaterializeRequest, fs: DeclarationFs): MaterializeResult {
  const waveProblem = waveNumberProblem(request.wave);
  if (waveProblem !== undefined) return { ok: false, reason: 'invalid-input', errors: [{ reason: 'bad-wave', message: waveProblem }] };
  const validation = validateWaveRecords(request.records, {
    ...request,
    controlDir: request.controlDir ?? controlDirOf(request.repoRoot, request.stateDir),
  });
  if (validation.records === undefined) return { ok: false, reason: 'invalid-input', errors: validation.errors };
  const inTheWay = declarationInTheWay(request.stateDir, request.wave, validation.records, fs);
  if (inTheWay !== undefined) return { ok: false, reason: 'in-the-way', inTheWay, message: describeInTheWay(inTheWay) };
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
