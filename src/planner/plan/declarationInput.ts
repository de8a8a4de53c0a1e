// Validation of a wave's declaration input, before anything is written: a non-empty array of
// `{id, files}` records whose ids can name files and whose entries are valid scope entries that name
// no control state. Every problem is reported at once, as data.
import { isAbsolute, relative, sep } from 'node:path';
import { compileScopeEntry, foldCase, normalizeScopeEntry, ScopeEntryError } from '../scope/scopeEntry';
import type { ScopeRecord } from '../scope/collisions';
import { AGENT_ID_PATTERN, COORDINATOR_ID, isAgentId, MAX_AGENT_ID_LENGTH } from './agentId';
import { describeControlState, findControlOverlap, liesInsideStateDir } from './controlState';
import { promoteDirectory } from './scopeRecords';

/** One agent's declaration: its id and its normalised entries (the scope engine's record). */
export type DeclaredRecord = ScopeRecord;

/** Machine-readable reason of a rejected declaration input. */
export type DeclarationInputReason =
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
  /** For `control-path`: a control path the entry can name. */
  controlPath?: string;
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
   * The state directory relative to the repository root (`.claude`). Entries that can name a path
   * inside it are refused, as are entries that can name any other control state (controlState.ts):
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

function usableControlDir(controlDir: string | undefined): string | undefined {
  if (controlDir === undefined) return undefined;
  const dir = controlDir.replace(/\\/g, '/').replace(/\/+$/, '');
  return dir === '' || dir === '.' || dir.startsWith('..') ? undefined : dir;
}

/** The refusal of an entry that can name control state, or undefined. */
function controlRefusal(record: string, entry: string, normalised: string, options: RecordValidationOptions): DeclarationInputError | undefined {
  const stateDir = usableControlDir(options.controlDir);
  const overlap = findControlOverlap(normalised, { ignoreCase: options.ignoreCase, stateDir });
  if (overlap === undefined) return undefined;
  const where = `record ${quote(record)}, entry ${quote(entry)}`;
  const message =
    stateDir !== undefined && liesInsideStateDir(normalised, stateDir, { ignoreCase: options.ignoreCase })
      ? `${where}: lies inside the state directory ${quote(`${options.controlDir}/`)}, which holds the wave's own declarations and manifest; no agent may own it`
      : overlap.control.kind === 'state-dir'
        ? `${where}: can name ${quote(overlap.witness)}, inside ${describeControlState(overlap.control)}; no agent may own it`
        : `${where}: can name ${quote(overlap.witness)}, which is control state (${describeControlState(overlap.control)}); no agent may own it`;
  return { reason: 'control-path', record, entry, controlPath: overlap.witness, message };
}

/**
 * Validates a whole declaration input before anything is written: a non-empty array of `{id, files}`,
 * ids matching AGENT_ID_PATTERN and unique ignoring case, at most one `coordinator` (exactly that
 * spelling), every entry valid under the scope grammar and naming no control state, every new file
 * declared. Reports every problem.
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
      } else if (id !== COORDINATOR_ID && foldCase(id) === COORDINATOR_ID) {
        errors.push({
          reason: 'coordinator-spelling',
          record: id,
          message: `${position}: id ${quote(id)} must be spelled exactly "${COORDINATOR_ID}" for the coordinator's own edits`,
        });
      } else {
        const key = foldCase(id);
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
        const refusal = controlRefusal(name, entry, normalised, options);
        if (refusal !== undefined) {
          errors.push(refusal);
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

  const fold = (text: string) => (options.ignoreCase ? foldCase(text) : text);
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
    const declared = plain && records.some((record) => record.files.some((entry) => fold(entry) === fold(normalised)));
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
  const fold = (path: string) => (options.ignoreCase ? foldCase(path) : path);
  const newFiles = new Set((options.newFiles ?? []).map(fold));
  const missing: MissingPath[] = [];
  for (const record of records) {
    for (const entry of record.files) {
      if (compileScopeEntry(entry, { ignoreCase: options.ignoreCase }).kind !== 'plain') continue;
      if (newFiles.has(fold(entry))) continue;
      if (!options.exists(entry)) missing.push({ agent: record.id, path: entry });
    }
  }
  return missing;
}
