// Files the coordinator owns by default: package manifests, lockfiles and workspace registries, the
// shared files every agent of a wave would need to touch (adding a dependency edits the manifest and
// rewrites its lockfile). Two agents installing at the same time race on the lockfile, and their
// branches conflict on it at merge, so these stay with the coordinator, who installs between waves.
// The editor shows them as the coordinator's, and assigning one to an agent warns with the reason; the
// CLI can ask the same rule (findCoordinatorAssignments).
import { FileIndex } from '../scope/fileIndex';
import { compileScopeEntry, foldCase, normalizeScopeEntry } from '../scope/scopeEntry';
import type { ScopeRecord } from '../scope/collisions';
import { COORDINATOR_ID } from './agentId';

/** Why a file belongs to the coordinator: it pins installed versions, lists dependencies, or lists packages. */
export type CoordinatorFileKind = 'lockfile' | 'manifest' | 'workspace';

/** One kind of coordinator-owned file, recognised by its file name at any depth. */
export interface CoordinatorFile {
  /** The file name, exactly as the tool spells it. */
  readonly name: string;
  readonly kind: CoordinatorFileKind;
  /** The tool that writes or reads it, for a person. */
  readonly tool: string;
}

/** Every file name the coordinator owns by default. */
export const COORDINATOR_FILES: readonly CoordinatorFile[] = [
  { name: 'package-lock.json', kind: 'lockfile', tool: 'npm' },
  { name: 'npm-shrinkwrap.json', kind: 'lockfile', tool: 'npm' },
  { name: 'pnpm-lock.yaml', kind: 'lockfile', tool: 'pnpm' },
  { name: 'yarn.lock', kind: 'lockfile', tool: 'Yarn' },
  { name: 'bun.lock', kind: 'lockfile', tool: 'Bun' },
  { name: 'bun.lockb', kind: 'lockfile', tool: 'Bun' },
  { name: 'deno.lock', kind: 'lockfile', tool: 'Deno' },
  { name: 'Cargo.lock', kind: 'lockfile', tool: 'Cargo' },
  { name: 'go.sum', kind: 'lockfile', tool: 'Go modules' },
  { name: 'go.work.sum', kind: 'lockfile', tool: 'Go workspaces' },
  { name: 'Gemfile.lock', kind: 'lockfile', tool: 'Bundler' },
  { name: 'poetry.lock', kind: 'lockfile', tool: 'Poetry' },
  { name: 'uv.lock', kind: 'lockfile', tool: 'uv' },
  { name: 'Pipfile.lock', kind: 'lockfile', tool: 'Pipenv' },
  { name: 'composer.lock', kind: 'lockfile', tool: 'Composer' },
  { name: 'pubspec.lock', kind: 'lockfile', tool: 'Dart pub' },
  { name: 'Package.resolved', kind: 'lockfile', tool: 'Swift Package Manager' },
  { name: 'packages.lock.json', kind: 'lockfile', tool: 'NuGet' },
  { name: 'mix.lock', kind: 'lockfile', tool: 'Mix' },
  { name: 'flake.lock', kind: 'lockfile', tool: 'Nix' },
  { name: 'package.json', kind: 'manifest', tool: 'npm' },
  { name: 'Cargo.toml', kind: 'manifest', tool: 'Cargo' },
  { name: 'go.mod', kind: 'manifest', tool: 'Go modules' },
  { name: 'Gemfile', kind: 'manifest', tool: 'Bundler' },
  { name: 'pyproject.toml', kind: 'manifest', tool: 'Python packaging' },
  { name: 'Pipfile', kind: 'manifest', tool: 'Pipenv' },
  { name: 'composer.json', kind: 'manifest', tool: 'Composer' },
  { name: 'pubspec.yaml', kind: 'manifest', tool: 'Dart pub' },
  { name: 'pnpm-workspace.yaml', kind: 'workspace', tool: 'pnpm' },
  { name: 'go.work', kind: 'workspace', tool: 'Go workspaces' },
];

const byName = new Map(COORDINATOR_FILES.map((file) => [file.name, file]));
const byFoldedName = new Map(COORDINATOR_FILES.map((file) => [foldCase(file.name), file]));

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** The coordinator file `path` (repository-relative, `/`-separated) is, by its file name at any depth; undefined for any other file. */
export function coordinatorFileOf(path: string, options: { ignoreCase?: boolean } = {}): CoordinatorFile | undefined {
  const name = baseName(path);
  return options.ignoreCase ? byFoldedName.get(foldCase(name)) : byName.get(name);
}

/** Why an agent should not own a file of this kind: one clause for a person. */
export function coordinatorFileReason(file: CoordinatorFile): string {
  switch (file.kind) {
    case 'lockfile':
      return `${file.name} is ${file.tool}'s lockfile: agents installing in parallel rewrite it at the same time and their branches conflict on it, so the coordinator installs between waves`;
    case 'manifest':
      return `${file.name} is ${file.tool}'s dependency manifest: every agent that adds a dependency edits it and its lockfile, which means parallel installs and lockfile conflicts, so the coordinator keeps it`;
    case 'workspace':
      return `${file.name} lists ${file.tool}'s workspace packages for the whole repository: every agent that adds a package edits it, so the coordinator keeps it`;
  }
}

/** An agent of a wave that owns a coordinator file. */
export interface CoordinatorAssignment {
  readonly agent: string;
  /** The agent's entry that names the file. */
  readonly entry: string;
  /** The coordinator file (repository-relative). */
  readonly file: string;
  readonly coordinatorFile: CoordinatorFile;
  /** One sentence for a person: who, which file, through which entry, and why not. */
  readonly message: string;
}

export interface CoordinatorAssignmentOptions {
  ignoreCase?: boolean;
  /** The repository's files: entries are matched against them. */
  files?: FileIndex | readonly string[];
}

/**
 * The coordinator files an entry names: a plain entry spelling one (whether the file exists or the wave
 * creates it), or the known files under a folder or glob that are coordinator files. Only the files
 * under the entry's literal directory are looked at, the cheap file-name test first. An entry the
 * grammar refuses names nothing (validation reports it).
 */
export function coordinatorFilesNamedBy(entry: string, files: FileIndex | undefined, options: { ignoreCase?: boolean } = {}): string[] {
  const ignoreCase = options.ignoreCase ?? files?.ignoreCase ?? false;
  let compiled;
  try {
    compiled = compileScopeEntry(entry, { ignoreCase });
  } catch {
    return [];
  }
  if (compiled.kind === 'plain' && !(files?.hasFilesBeneath(entry) ?? false)) return coordinatorFileOf(entry, { ignoreCase }) === undefined ? [] : [entry];
  if (files === undefined) return [];
  return files
    .filesUnder(compiled.literalPrefix.join('/'))
    .filter((file) => coordinatorFileOf(file, { ignoreCase }) !== undefined && compiled.matches(file))
    .sort();
}

/**
 * Every agent (other than the coordinator's own record) whose scope names a coordinator file
 * (coordinatorFilesNamedBy). Entries must be normalised. Each (agent, file) once, with the first entry
 * that names it.
 */
export function findCoordinatorAssignments(records: readonly ScopeRecord[], options: CoordinatorAssignmentOptions = {}): CoordinatorAssignment[] {
  const ignoreCase = options.ignoreCase ?? false;
  const index = options.files === undefined ? undefined : options.files instanceof FileIndex ? options.files : new FileIndex(options.files, { ignoreCase });
  const named = new Map<string, string[]>();
  const found: CoordinatorAssignment[] = [];
  for (const record of records) {
    if (record.id === COORDINATOR_ID) continue;
    const seen = new Set<string>();
    for (const entry of record.files) {
      let files = named.get(entry);
      if (files === undefined) {
        files = coordinatorFilesNamedBy(entry, index, { ignoreCase });
        named.set(entry, files);
      }
      for (const file of files) {
        const coordinatorFile = coordinatorFileOf(file, { ignoreCase }) as CoordinatorFile;
        const key = ignoreCase ? foldCase(file) : file;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(coordinatorAssignment(record.id, entry, file, coordinatorFile));
      }
    }
  }
  return found;
}

/** The assignment of one coordinator file to an agent, with its sentence. */
export function coordinatorAssignment(agent: string, entry: string, file: string, coordinatorFile: CoordinatorFile): CoordinatorAssignment {
  const through = entry === file ? '' : ` (through ${JSON.stringify(entry)})`;
  return {
    agent,
    entry,
    file,
    coordinatorFile,
    message: `agent ${JSON.stringify(agent)} owns ${file}${through}, a file the coordinator keeps: ${coordinatorFileReason(coordinatorFile)}`,
  };
}

/**
 * The coordinator files agents of not yet validated input would own (`plan write`, `materialize`):
 * records as they arrive on stdin, each entry normalised on its own; anything malformed is skipped,
 * since validation reports it. Never refuses: a coordinator may have its reasons, so this only warns.
 */
export function coordinatorAssignmentsOfInput(
  records: unknown,
  options: CoordinatorAssignmentOptions & { repoRoot?: string } = {},
): CoordinatorAssignment[] {
  if (!Array.isArray(records)) return [];
  const parsed: ScopeRecord[] = [];
  for (const record of records as unknown[]) {
    if (typeof record !== 'object' || record === null) continue;
    const { id, files } = record as { id?: unknown; files?: unknown };
    if (typeof id !== 'string' || !Array.isArray(files)) continue;
    const entries: string[] = [];
    for (const entry of files as unknown[]) {
      if (typeof entry !== 'string') continue;
      try {
        entries.push(normalizeScopeEntry(entry, { ...(options.repoRoot !== undefined ? { repoRoot: options.repoRoot } : {}), ...(options.ignoreCase !== undefined ? { ignoreCase: options.ignoreCase } : {}) }));
      } catch {
        // Validation names it.
      }
    }
    parsed.push({ id, files: entries });
  }
  return findCoordinatorAssignments(parsed, options);
}
