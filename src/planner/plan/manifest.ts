// The wave manifest `<state-dir>/wave-scope.json`: its type and its validator.
//
// `validateManifest` runs on the write gate's hot path (every Edit of every agent), so it is a
// small hand-written structural check, not a JSON Schema compiled at run time. The published
// schema `schemas/wave-scope.schema.json` says the same thing; test/planner/plan/manifest.test.ts
// proves the two agree on a table of documents. Change both together. One check goes beyond what a
// schema can say: no grant may name control state (controlState.ts), decided by the scope algebra.
import { foldCase, ScopeEntryError } from '../scope/scopeEntry';
import { describeControlState, findControlOverlap } from './controlState';
import { parseJsonText } from './jsonText';

/** How the write gate treats a write outside `allowedPaths`. */
export type Enforcement = 'strict' | 'warn' | 'off';

/** The enforcement a manifest gets when it names none. */
export const DEFAULT_ENFORCEMENT: Enforcement = 'strict';

export const ENFORCEMENT_VALUES: readonly Enforcement[] = ['strict', 'warn', 'off'];

/** The manifest of the active wave, written by `wave-scope plan write` and read by every hook. */
export interface WaveManifest {
  /** File format version; always 1. */
  version: 1;
  /** The wave this manifest governs (positive integer). */
  wave: number;
  /** The wave's role (e.g. `implementation`, `discovery`); also selects test-sibling expansion. */
  role: string;
  /** `strict` denies out-of-scope writes, `warn` reports them, `off` lets everything through. */
  enforcement: Enforcement;
  /** Computed, never hand-written: the union of the wave's proven-disjoint declarations plus test siblings. */
  allowedPaths: string[];
  /** Shell commands the command gate refuses during this wave. */
  blockedCommands: string[];
  /** Optional named switches for the hooks (each a boolean). */
  gates?: Record<string, boolean>;
  /** The writer's process-local session id. Absent: the manifest is unbound and binds every session. */
  session_id?: string;
  /** Human-readable twin of `session_id`. */
  semantic_session_id?: string;
  /**
   * `true` when the wave was proven disjoint with case folded (`core.ignorecase`). The hooks fold case in
   * what they let through only for such a wave: one proven with case compared may hold `src/Parser.ts` and
   * `src/parser.ts` in two agents, which a config turned to ignore case later would grant both (found by
   * red-team review, 2026-12-06). Absent: proven with case compared.
   */
  ignoreCase?: boolean;
}

/** What `validateManifest` found: every error and warning at once, and the manifest when there is no error. */
export interface ManifestValidation {
  /** Problems that make the document unusable as a manifest (sentences, no `ERROR:` prefix). */
  errors: string[];
  /** Things that are allowed but probably wrong (sentences, no `WARNING:` prefix). */
  warnings: string[];
  /** The manifest with defaults applied (`enforcement`), present exactly when `errors` is empty. */
  manifest?: WaveManifest;
}

const KNOWN_KEYS = new Set([
  'version',
  'wave',
  'role',
  'enforcement',
  'allowedPaths',
  'blockedCommands',
  'gates',
  'session_id',
  'semantic_session_id',
  'ignoreCase',
]);

/** Keys older manifests used for the session binding; readers still honour them. */
export const LEGACY_SESSION_KEYS: Readonly<Record<string, string>> = {
  session: 'session_id',
  semantic_session: 'semantic_session_id',
};

// Roles whose waves do not write: an empty allowedPaths is their normal state, not a mistake.
const READ_ONLY_ROLES = new Set(['discovery', 'review', 'research', 'audit', 'analysis', 'planning', 'plan', 'read-only', 'readonly']);

/** Whether a role's wave is expected to write files (an empty `allowedPaths` is then suspicious). */
export function roleWrites(role: string): boolean {
  return !READ_ONLY_ROLES.has(foldCase(role.trim()));
}

// These regular expressions are the same ones the published schema uses (as `pattern`s).
const SURROUNDING_WHITESPACE_FREE = /^\S(?:[\s\S]*\S)?$/u;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/u;
const ABSOLUTE = /^(?:[/\\]|[A-Za-z]:)/u;
const HOME = /^(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|%HOMEPATH%|%HOMEDRIVE%)/u;
const TRAVERSAL = /(?:^|[/\\])\.\.(?:[/\\]|$)/u;
const NEGATION = /^!/u;
const NON_BLANK = /\S/u;

const SYSTEM_DIRECTORIES = new Set([
  'etc', 'usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'var', 'opt', 'boot', 'dev', 'proc', 'sys', 'run',
  'srv', 'mnt', 'media', 'tmp', 'snap', 'nix', 'system', 'library', 'applications', 'private', 'volumes',
  'cores', 'windows', 'program files', 'program files (x86)', 'programdata', 'system volume information',
]);
const HOME_DIRECTORIES = new Set(['home', 'users', 'root', 'documents and settings']);
const WILDCARD_GRANTS = new Set(['*', '**', '**/*', '**/**', '*/**']);

/** Why an `allowedPaths` entry is refused, as a sentence; undefined when it is acceptable. */
export function refuseGrant(entry: string): string | undefined {
  if (entry.length === 0) return 'is empty';
  if (CONTROL_CHARACTER.test(entry)) return 'contains a control character';
  if (!SURROUNDING_WHITESPACE_FREE.test(entry)) return 'has leading or trailing whitespace';
  if (HOME.test(entry)) return 'grants a home directory';
  if (ABSOLUTE.test(entry)) return describeAbsoluteGrant(entry);
  if (TRAVERSAL.test(entry)) return 'climbs out of the repository with ".."';
  if (NEGATION.test(entry)) return 'is a negation ("!"), which grants nothing and cannot be enforced';
  return undefined;
}

function describeAbsoluteGrant(entry: string): string {
  const slashed = entry.replace(/\\/g, '/');
  const withoutDrive = slashed.replace(/^[A-Za-z]:/, '');
  const segments = withoutDrive.split('/').filter((segment) => segment !== '' && segment !== '.');
  const meaningful = segments.filter((segment) => segment !== '*' && segment !== '**');
  if (slashed.startsWith('//') && !slashed.startsWith('///')) {
    return meaningful.length <= 2 ? 'grants a network share root' : 'is an absolute path: write it relative to the repository root';
  }
  if (meaningful.length === 0) return 'grants the file-system root';
  const first = foldCase(meaningful[0] ?? '');
  if (HOME_DIRECTORIES.has(first)) return 'grants a home directory (or all of them)';
  if (SYSTEM_DIRECTORIES.has(first)) return `grants the system directory "/${meaningful[0]}"`;
  return 'is an absolute path: write it relative to the repository root';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/**
 * Why a grant is refused as control state, as a sentence; undefined when it names none. Case is
 * folded (a manifest does not say which file system it is on, so `.GIT/` counts as `.git/`). An entry
 * the grammar refuses grants nothing at the gate, so it names nothing here either.
 */
export function refuseControlGrant(entry: string): string | undefined {
  let overlap: ReturnType<typeof findControlOverlap>;
  try {
    overlap = findControlOverlap(entry, { ignoreCase: true });
  } catch (error) {
    if (error instanceof ScopeEntryError) return undefined;
    throw error;
  }
  return overlap === undefined
    ? undefined
    : `can name ${JSON.stringify(overlap.witness)}, which is control state (${describeControlState(overlap.control)}): no wave grants it`;
}

// Each grant's refusal (refuseGrant, then refuseControlGrant: both functions of the entry alone), by entry.
// One process validates the same grants more than once: a sync checks the manifest in the state directory,
// the one published and the one it computes, which mostly hold the same 300-odd entries.
const grantRefusals = new Map<string, string | null>();
const MAX_REMEMBERED_GRANTS = 4096;

/** Why a grant is refused, or as control state (refuseGrant, then refuseControlGrant); undefined when it is not. */
function refusalOfGrant(entry: string): string | undefined {
  const remembered = grantRefusals.get(entry);
  if (remembered !== undefined) return remembered ?? undefined;
  const refusal = refuseGrant(entry) ?? refuseControlGrant(entry);
  if (grantRefusals.size >= MAX_REMEMBERED_GRANTS) grantRefusals.clear();
  grantRefusals.set(entry, refusal ?? null);
  return refusal;
}

export interface ManifestValidationOptions {
  /**
   * Refuse grants that can name control state (default true). False leaves exactly what the published
   * schema says, for the test that proves the two agree.
   */
  controlState?: boolean;
}

/** Validates a parsed `wave-scope.json`. Cheap and synchronous: safe on a hook's hot path. */
export function validateManifest(value: unknown, options: ManifestValidationOptions = {}): ManifestValidation {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!isPlainObject(value)) {
    return { errors: [`the manifest must be a JSON object, got ${describeValue(value)}`], warnings };
  }

  if (!('version' in value)) errors.push('"version" is missing: write "version": 1');
  else if (value.version !== 1) errors.push(`"version" must be 1, got ${describeValue(value.version)}`);

  if (!('wave' in value)) errors.push('"wave" is missing: the manifest must name its wave (a positive integer)');
  else if (typeof value.wave !== 'number' || !Number.isInteger(value.wave) || value.wave < 1) {
    errors.push(`"wave" must be a positive integer, got ${describeValue(value.wave)}`);
  }

  if (!('role' in value)) errors.push('"role" is missing: name the wave\'s role (e.g. "implementation")');
  else if (typeof value.role !== 'string' || !NON_BLANK.test(value.role)) {
    errors.push(`"role" must be a non-empty string, got ${describeValue(value.role)}`);
  } else if (CONTROL_CHARACTER.test(value.role)) {
    // A role is a word people read (in plan show, in the planner): it never needs a control character.
    errors.push(`"role" ${describeValue(value.role)} contains a control character`);
  }

  if ('enforcement' in value && !ENFORCEMENT_VALUES.includes(value.enforcement as Enforcement)) {
    errors.push(`"enforcement" must be one of "strict", "warn", "off", got ${describeValue(value.enforcement)}`);
  }

  if (!('allowedPaths' in value)) {
    errors.push('"allowedPaths" is missing: compute it with "wave-scope plan write" (an empty array grants nothing)');
  } else if (!Array.isArray(value.allowedPaths)) {
    errors.push(`"allowedPaths" must be an array of path strings, got ${describeValue(value.allowedPaths)}`);
  } else {
    value.allowedPaths.forEach((entry: unknown, index) => {
      if (typeof entry !== 'string') {
        errors.push(`"allowedPaths"[${index}] must be a string, got ${describeValue(entry)}`);
        return;
      }
      const refusal = options.controlState === false ? refuseGrant(entry) : refusalOfGrant(entry);
      if (refusal !== undefined) errors.push(`"allowedPaths"[${index}] ${describeValue(entry)} ${refusal}`);
      else if (WILDCARD_GRANTS.has(entry.replace(/^(?:\.\/)+/, ''))) {
        warnings.push(`"allowedPaths"[${index}] ${describeValue(entry)} grants every file of the repository: the wave is not confined`);
      }
    });
    if (value.allowedPaths.length === 0 && typeof value.role === 'string' && NON_BLANK.test(value.role) && roleWrites(value.role)) {
      warnings.push(`"allowedPaths" is empty, so role "${value.role}" may not write any file; is the union missing?`);
    }
  }

  if (!('blockedCommands' in value)) errors.push('"blockedCommands" is missing: write [] when no command is blocked');
  else if (!Array.isArray(value.blockedCommands)) {
    errors.push(`"blockedCommands" must be an array of command strings, got ${describeValue(value.blockedCommands)}`);
  } else {
    value.blockedCommands.forEach((command: unknown, index) => {
      if (typeof command !== 'string' || !NON_BLANK.test(command)) {
        errors.push(`"blockedCommands"[${index}] must be a non-empty string, got ${describeValue(command)}`);
      }
    });
  }

  if ('gates' in value) {
    if (!isPlainObject(value.gates)) errors.push(`"gates" must be an object of booleans, got ${describeValue(value.gates)}`);
    else {
      for (const [name, setting] of Object.entries(value.gates)) {
        if (typeof setting !== 'boolean') errors.push(`"gates"."${name}" must be true or false, got ${describeValue(setting)}`);
      }
    }
  }

  for (const key of ['session_id', 'semantic_session_id'] as const) {
    if (!(key in value)) continue;
    const id = value[key];
    if (typeof id !== 'string') errors.push(`"${key}" must be a string, got ${describeValue(id)}`);
    else if (!NON_BLANK.test(id)) {
      errors.push(`"${key}" is empty: an empty id attributes the manifest to nobody; omit the key to leave the manifest unbound`);
    }
  }
  if ('ignoreCase' in value && typeof value.ignoreCase !== 'boolean') errors.push(`"ignoreCase" must be true or false, got ${describeValue(value.ignoreCase)}`);
  if (!('session_id' in value) && !('semantic_session_id' in value)) {
    warnings.push('the manifest names no session ("session_id"): it binds every session that shares this checkout');
  }

  for (const key of Object.keys(value)) {
    if (KNOWN_KEYS.has(key)) continue;
    const renamed = LEGACY_SESSION_KEYS[key];
    warnings.push(
      renamed === undefined ? `unknown key "${key}" is ignored` : `"${key}" is the legacy spelling of "${renamed}": rename it`,
    );
  }

  if (errors.length > 0) return { errors, warnings };
  const manifest: WaveManifest = {
    version: 1,
    wave: value.wave as number,
    role: value.role as string,
    enforcement: (value.enforcement as Enforcement | undefined) ?? DEFAULT_ENFORCEMENT,
    allowedPaths: [...(value.allowedPaths as string[])],
    blockedCommands: [...(value.blockedCommands as string[])],
  };
  if (isPlainObject(value.gates)) manifest.gates = { ...(value.gates as Record<string, boolean>) };
  if (typeof value.session_id === 'string') manifest.session_id = value.session_id;
  if (typeof value.semantic_session_id === 'string') manifest.semantic_session_id = value.semantic_session_id;
  if (value.ignoreCase === true) manifest.ignoreCase = true;
  return { errors, warnings, manifest };
}

/**
 * Validates the text of a manifest (what `wave-scope validate` reads on stdin when no assertion flag
 * is given): empty input and JSON syntax errors are errors too.
 */
export function validateManifestDocument(text: string): ManifestValidation {
  if (text.trim() === '') {
    return { errors: ['no manifest on stdin: pipe a wave-scope.json into the command'], warnings: [] };
  }
  const json = parseJsonText(text);
  if (!json.ok) return { errors: [`the manifest is not valid JSON: ${json.message}`], warnings: [] };
  return validateManifest(json.value);
}

/** A manifest as the text written to disk: fixed key order, two-space indent, final newline. */
export function formatManifest(manifest: WaveManifest): string {
  const ordered: Record<string, unknown> = {
    version: manifest.version,
    wave: manifest.wave,
    role: manifest.role,
    enforcement: manifest.enforcement,
    allowedPaths: manifest.allowedPaths,
    blockedCommands: manifest.blockedCommands,
  };
  if (manifest.gates !== undefined) ordered.gates = manifest.gates;
  if (manifest.ignoreCase === true) ordered.ignoreCase = true;
  if (manifest.session_id !== undefined) ordered.session_id = manifest.session_id;
  if (manifest.semantic_session_id !== undefined) ordered.semantic_session_id = manifest.semantic_session_id;
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
