// Everything on disk about the waves of one state directory, as one stable JSON document
// (docs/file-formats.md, "plan show"). The extension's planner view and `wave-scope plan show` read it.
import { relative, sep } from 'node:path';
import { findCollisions } from '../scope/collisions';
import type { Collision } from '../scope/collisions';
import type { DeclarationFs, DeclarationStatus } from './declarationStore';
import { COORDINATOR_ID } from './agentId';
import { agentScopePath } from './declarationPaths';
import { listDeclaredWaves, readWaveDeclaration } from './declarationStore';
import { expand } from '../scope/fileIndex';
import type { Enforcement } from './manifest';
import { compileScopeEntry } from '../scope/scopeEntry';
import { scopeDigest } from '../scope/scopeDigest';
import { manifestSessionIds } from './sessionBinding';
import type { SessionVerdict } from './sessionBinding';
import type { ManifestProblemReason } from './stateDir';
import { inspectStateDir, resolveStateDir } from './stateDir';

/** Version of the PlanView document. */
export const PLAN_VIEW_VERSION = 1;

/** One entry of an agent's scope. */
export interface PlanEntryView {
  /** The normalised entry. */
  entry: string;
  kind: 'plain' | 'glob';
  /** How many known repository files it names. */
  matches: number;
}

export interface PlanAgentView {
  id: string;
  /** True for the `coordinator` record (the coordinator's own edits; never dispatched). */
  coordinator: boolean;
  /** Its per-agent file, relative to the repository root, `/`-separated. */
  scopeFile: string;
  entries: PlanEntryView[];
  /** scopeDigest of its entries; null when an entry is not valid under the grammar. */
  digest: string | null;
}

export interface PlanWaveView {
  wave: number;
  status: DeclarationStatus;
  /** True when the manifest names this wave. */
  active: boolean;
  /** The aggregate sidecar, relative to the repository root. */
  sidecar: string;
  /** From the aggregate (empty when it is absent or invalid), in its order. */
  agents: PlanAgentView[];
  /** Ids of per-agent files the aggregate does not name. */
  strayAgentFiles: string[];
  /** Cross-agent collisions among the aggregate's records (empty when disjoint). */
  collisions: Collision[];
  duplicateIds: string[];
  /** Why the wave is not complete (sentences). */
  problems: string[];
}

export interface PlanManifestView {
  /** `<stateDir>/wave-scope.json`, relative to the repository root. */
  path: string;
  found: boolean;
  /** Session verdict for the reading process. */
  session: SessionVerdict;
  /**
   * The agent sessions the manifest is bound to (`session_id`, then its human-readable twin); empty when it
   * is unbound, and so binds every session (or when it is unusable).
   */
  boundTo: string[];
  wave: number | null;
  role: string | null;
  enforcement: Enforcement | null;
  allowedPaths: string[];
  /** Set when the file exists but cannot be used. */
  problem: { reason: ManifestProblemReason; message: string } | null;
  warnings: string[];
}

/** `plan show --json`: the stable document. Keys never disappear; absent values are null or []. */
export interface PlanView {
  version: typeof PLAN_VIEW_VERSION;
  /** The state directory, relative to the repository root. */
  stateDir: string;
  manifest: PlanManifestView;
  /** The wave the manifest names, or null. */
  activeWave: number | null;
  /** Every wave with anything on disk, ascending. */
  waves: PlanWaveView[];
}

export interface ReadPlanOptions {
  /** Absolute state directory; resolved with resolveStateDir when absent. */
  stateDir?: string;
  /** The reading process's session ids. */
  ownIds?: ReadonlySet<string>;
  ignoreCase?: boolean;
  /** Repository-relative files, for match counts and glob witnesses. */
  files?: readonly string[];
}

function repoRelative(repoRoot: string, path: string): string {
  const rel = relative(repoRoot, path);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

/** Entry → matched files; an entry the grammar refuses (a hand-edited aggregate) matches nothing instead of failing the view. */
function matchEntries(entries: string[], files: readonly string[], ignoreCase: boolean | undefined): Map<string, string[]> {
  if (entries.length === 0 || files.length === 0) return new Map();
  try {
    return expand(entries, files, { ignoreCase });
  } catch {
    const matched = new Map<string, string[]>();
    for (const entry of entries) {
      try {
        matched.set(entry, expand([entry], files, { ignoreCase }).get(entry) ?? []);
      } catch {
        matched.set(entry, []);
      }
    }
    return matched;
  }
}

/** Reads every wave of the state directory of `repoRoot`. Never throws on content; I/O errors other than "absent" propagate. */
export function readPlan(repoRoot: string, options: ReadPlanOptions, fs: DeclarationFs): PlanView {
  const ownIds = options.ownIds ?? new Set<string>();
  const manifestInfo =
    options.stateDir === undefined ? resolveStateDir(repoRoot, ownIds, fs) : inspectStateDir(options.stateDir, ownIds, fs);
  const stateDir = manifestInfo.stateDir;
  const manifestView: PlanManifestView = {
    path: repoRelative(repoRoot, manifestInfo.manifestPath),
    found: manifestInfo.found,
    session: manifestInfo.session,
    boundTo: manifestSessionIds(manifestInfo.manifest),
    wave: manifestInfo.manifest?.wave ?? null,
    role: manifestInfo.manifest?.role ?? null,
    enforcement: manifestInfo.manifest?.enforcement ?? null,
    allowedPaths: manifestInfo.manifest?.allowedPaths ?? [],
    problem: manifestInfo.problem === undefined ? null : { reason: manifestInfo.problem.reason, message: manifestInfo.problem.message },
    warnings: manifestInfo.warnings ?? [],
  };
  const activeWave = manifestView.wave;
  const files = options.files ?? [];
  const waves: PlanWaveView[] = [];
  for (const wave of listDeclaredWaves(stateDir, fs)) {
    const declaration = readWaveDeclaration(stateDir, wave, fs, { ignoreCase: options.ignoreCase });
    const records = declaration.records ?? [];
    const allEntries = [...new Set(records.flatMap((record) => record.files))];
    const matched = matchEntries(allEntries, files, options.ignoreCase);
    const agents: PlanAgentView[] = records.map((record) => {
      let digest: string | null;
      try {
        digest = scopeDigest(record.files);
      } catch {
        digest = null;
      }
      let scopeFile: string;
      try {
        scopeFile = repoRelative(repoRoot, agentScopePath(stateDir, wave, record.id));
      } catch {
        scopeFile = '';
      }
      return {
        id: record.id,
        coordinator: record.id === COORDINATOR_ID,
        scopeFile,
        entries: record.files.map((entry) => {
          let kind: 'plain' | 'glob' = 'plain';
          try {
            kind = compileScopeEntry(entry, { ignoreCase: options.ignoreCase }).kind;
          } catch {
            kind = 'plain';
          }
          return { entry, kind, matches: matched.get(entry)?.length ?? 0 };
        }),
        digest,
      };
    });
    let collisions: Collision[] = [];
    let duplicateIds: string[] = [];
    const problems = [...declaration.problems];
    if (records.length > 0) {
      try {
        const report = findCollisions(records, { knownFiles: files, ignoreCase: options.ignoreCase });
        collisions = report.collisions;
        duplicateIds = report.duplicateIds;
      } catch (error) {
        problems.push(`collisions could not be computed: ${(error as Error).message}`);
      }
    }
    waves.push({
      wave,
      status: declaration.status,
      active: wave === activeWave,
      sidecar: repoRelative(repoRoot, declaration.sidecarPath),
      agents,
      strayAgentFiles: declaration.strayAgentFiles,
      collisions,
      duplicateIds,
      problems,
    });
  }
  return { version: PLAN_VIEW_VERSION, stateDir: repoRelative(repoRoot, stateDir), manifest: manifestView, activeWave, waves };
}
