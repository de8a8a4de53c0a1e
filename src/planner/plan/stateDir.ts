// Which state directory holds this session's manifest. Up to four harness directories can carry a
// `wave-scope.json`; the first one that is not provably another session's wins, so a peer's manifest
// in `.pi` cannot hide this session's own `.claude` one. An unbound, unreadable or corrupt manifest is
// not provably foreign and is chosen (it still decides, fail closed).
import { basename, join } from 'node:path';
import { validateManifest } from './manifest';
import type { WaveManifest } from './manifest';
import { parseJsonText } from './jsonText';
import { classifyManifestSession } from './sessionBinding';
import type { SessionVerdict } from './sessionBinding';
import { DEFAULT_STATE_DIR_NAME, MANIFEST_FILE_NAME, STATE_DIR_NAMES } from './stateDirNames';

/** The read half of the file system a state-dir lookup needs. */
export interface StateDirFs {
  /** The file's text, or undefined when it does not exist. Throws on any other failure (unreadable, a directory...). */
  readText(path: string): string | undefined;
}

/** Why a manifest that exists could not be used as one. */
export type ManifestProblemReason = 'unreadable' | 'not-json' | 'invalid';

export interface ManifestProblem {
  reason: ManifestProblemReason;
  /** For a person: what is wrong with the file. */
  message: string;
  /** The validator's errors for `invalid`. */
  errors?: string[];
}

export interface StateDirResolution {
  /** Absolute path of the chosen state directory. */
  stateDir: string;
  /** Its base name (one of STATE_DIR_NAMES unless given explicitly). */
  name: string;
  /** Absolute path of `<stateDir>/wave-scope.json`. */
  manifestPath: string;
  /** Whether a manifest file exists there. False means: no candidate had one, default chosen. */
  found: boolean;
  /** The chosen manifest's session verdict (`unknown` when not found or unusable). */
  session: SessionVerdict;
  /** The valid manifest, when found and valid. */
  manifest?: WaveManifest;
  /** Warnings of the validator for a valid manifest. */
  warnings?: string[];
  /** Set when the file exists but is not a usable manifest (it is still the one that decides). */
  problem?: ManifestProblem;
}

interface Candidate extends StateDirResolution {
  found: true;
}

function inspectCandidate(stateDir: string, name: string, ownIds: ReadonlySet<string>, fs: StateDirFs): Candidate | undefined {
  const manifestPath = join(stateDir, MANIFEST_FILE_NAME);
  let text: string | undefined;
  try {
    text = fs.readText(manifestPath);
  } catch (error) {
    return {
      stateDir, name, manifestPath, found: true, session: 'unknown',
      problem: { reason: 'unreadable', message: `${manifestPath} cannot be read: ${(error as Error).message}` },
    };
  }
  if (text === undefined) return undefined;
  const json = parseJsonText(text);
  if (!json.ok) {
    return {
      stateDir, name, manifestPath, found: true, session: 'unknown',
      problem: { reason: 'not-json', message: `${manifestPath} is not valid JSON: ${json.message}` },
    };
  }
  const parsed = json.value;
  const session = classifyManifestSession(parsed, ownIds);
  const validation = validateManifest(parsed);
  if (validation.manifest === undefined) {
    return {
      stateDir, name, manifestPath, found: true, session,
      problem: { reason: 'invalid', message: `${manifestPath} is not a valid manifest: ${validation.errors.join('; ')}`, errors: validation.errors },
    };
  }
  return { stateDir, name, manifestPath, found: true, session, manifest: validation.manifest, warnings: validation.warnings };
}

/**
 * Resolves the state directory of `repoRoot` for a process whose own session ids are `ownIds`: the
 * first candidate (`.pi`, `.cursor`, `.codex`, `.claude`) holding a manifest that is not `foreign`;
 * when every existing manifest is foreign, the first of those; when none exists, `.claude` (not found).
 */
export function resolveStateDir(repoRoot: string, ownIds: ReadonlySet<string>, fs: StateDirFs): StateDirResolution {
  let firstForeign: Candidate | undefined;
  for (const name of STATE_DIR_NAMES) {
    const candidate = inspectCandidate(join(repoRoot, name), name, ownIds, fs);
    if (candidate === undefined) continue;
    if (candidate.session !== 'foreign') return candidate;
    firstForeign ??= candidate;
  }
  if (firstForeign !== undefined) return firstForeign;
  const stateDir = join(repoRoot, DEFAULT_STATE_DIR_NAME);
  return { stateDir, name: DEFAULT_STATE_DIR_NAME, manifestPath: join(stateDir, MANIFEST_FILE_NAME), found: false, session: 'unknown' };
}

/**
 * Reads the manifest of one given state directory (an explicit `--state-dir`), with the same
 * verdicts as resolveStateDir; `found` is false when it holds no manifest.
 */
export function inspectStateDir(stateDir: string, ownIds: ReadonlySet<string>, fs: StateDirFs): StateDirResolution {
  const name = basename(stateDir);
  return (
    inspectCandidate(stateDir, name, ownIds, fs) ?? {
      stateDir, name, manifestPath: join(stateDir, MANIFEST_FILE_NAME), found: false, session: 'unknown',
    }
  );
}
