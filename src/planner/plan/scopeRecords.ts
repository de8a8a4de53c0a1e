// Reading the canonical declaration shape, a JSON array of `{id, files}` records, into normalised records.
// Everything a person can get wrong is reported with the record and the entry it concerns.
import type { FileIndex } from '../scope/fileIndex';
import { normalizeScopeEntry, parseScopeEntry, ScopeEntryError } from '../scope/scopeEntry';
import type { GrammarOptions, ScopeEntryErrorReason } from '../scope/scopeEntry';
import type { ScopeRecord } from '../scope/collisions';


export type ScopeInputErrorReason = 'not-an-array' | 'record-not-an-object' | 'files-not-an-array' | ScopeEntryErrorReason;

/** Input that is not a usable `[{id, files}]` array. `message` says what and where. */
export class ScopeInputError extends Error {
  constructor(
    readonly reason: ScopeInputErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'ScopeInputError';
  }
}

export interface RecordOptions extends GrammarOptions {
  /** Known files: a plain entry naming a directory with files beneath it (and not itself a file) becomes `dir/`. */
  files?: FileIndex;
}

/** The name a record goes by: its id, or `<unnamed#i>` when it has none a person could use. */
export function recordName(id: unknown, position: number): string {
  return typeof id === 'string' && id.trim() !== '' ? id : `<unnamed#${position}>`;
}

function describeRecord(id: unknown, position: number): string {
  return typeof id === 'string' && id.trim() !== '' ? `record ${position} ("${id}")` : `record ${position}`;
}

/**
 * A plain entry that names a directory (known files beneath it, and not a known file itself) means the whole
 * directory: `src/lib` becomes `src/lib/`. Anything else is returned unchanged.
 */
export function promoteDirectory(spelling: string, files: Pick<FileIndex, 'has' | 'hasFilesBeneath'>, options: GrammarOptions = {}): string {
  // Cheapest test first: most plain entries are files, and a file is never promoted.
  if (spelling.endsWith('/') || files.has(spelling)) return spelling;
  if (parseScopeEntry(spelling, options).kind !== 'plain' || !files.hasFilesBeneath(spelling)) return spelling;
  return `${spelling}/`;
}

/** Normalises one entry, naming the record in the error when it is rejected. */
export function normalizeRecordEntry(raw: unknown, recordLabel: string, options: RecordOptions = {}): string {
  try {
    const spelling = normalizeScopeEntry(raw, options);
    return options.files === undefined ? spelling : promoteDirectory(spelling, options.files, options);
  } catch (error) {
    if (error instanceof ScopeEntryError) throw new ScopeInputError(error.reason, `${recordLabel}: ${error.message}`);
    throw error;
  }
}

/** Validates the `[{id, files}]` shape and normalises every entry. Throws ScopeInputError. */
export function parseScopeRecords(json: unknown, options: RecordOptions = {}): ScopeRecord[] {
  if (!Array.isArray(json)) {
    throw new ScopeInputError('not-an-array', 'expected a JSON array of {id, files} records');
  }
  return json.map((record: unknown, index) => {
    const position = index + 1;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new ScopeInputError('record-not-an-object', `record ${position} is not an object: each record is {"id": "...", "files": [...]}`);
    }
    const { id, files } = record as { id?: unknown; files?: unknown };
    const label = describeRecord(id, position);
    if (!Array.isArray(files)) {
      throw new ScopeInputError('files-not-an-array', `${label} has no "files" array: list its paths and globs as strings`);
    }
    const normalised = files.map((entry: unknown, entryIndex) => normalizeRecordEntry(entry, `${label}, entry ${entryIndex + 1}`, options));
    return { id: recordName(id, position), files: [...new Set(normalised)] };
  });
}
