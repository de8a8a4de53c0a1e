// The extension's bridge to the plan on disk. Reading goes through readPlan, writing through the
// safe chain (writeWavePlan for the wave the manifest names, materializeWave for the others, and
// only after every wave of the draft is proven disjoint), validation through findCollisions.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findCollisions } from '../planner/scope/collisions';
import { FileIndex, expand } from '../planner/scope/fileIndex';
import { agentScopePath, waveDirPath, waveSidecarPath } from '../planner/plan/declarationPaths';
import { listDeclaredWaves, materializeWave, readWaveDeclaration } from '../planner/plan/declarationStore';
import { nodeDeclarationFs } from '../node/declarationFs';
import { readPlan } from '../planner/plan/planReader';
import { resolveWriteStateDir, writeWavePlan } from '../planner/plan/planWriter';
import { processLocalSessionIds } from '../planner/plan/sessionBinding';
import { STATE_DIR_NAMES } from '../planner/plan/stateDir';
import type { CollisionSummary, PlanDraft, SaveOutcome } from '../protocol/plannerProtocol';

const LANE_COLORS = ['#3794ff', '#e5a000', '#4ec94e', '#d16fd1', '#f14c4c', '#2fb5b5', '#c08b5c', '#8c8cff'];

/**
 * What the planner remembers that the files on disk do not say: lane colours by agent id, and the role of
 * each wave (only the wave the manifest names has its role on disk).
 */
export interface RememberedLook {
  colors: Record<string, string>;
  roles: Record<string, string>;
}

const DEFAULT_ROLE = 'builder';

/** The plan on disk as a planner draft, with the remembered colours and roles. */
export function readDiskPlan(repoRoot: string, remembered: RememberedLook, ignoreCase: boolean): { plan: PlanDraft; problem: string | undefined } {
  const { colors, roles } = remembered;
  const ownIds = processLocalSessionIds({ env: process.env });
  const view = readPlan(repoRoot, { ownIds, ignoreCase }, nodeDeclarationFs(repoRoot));
  const problems: string[] = [];
  if (view.manifest.problem) problems.push(view.manifest.problem.message);
  const waves = view.waves.map((wave) => {
    if (wave.problems.length > 0) problems.push(`wave ${wave.wave}: ${wave.problems.join(' ')}`);
    return {
      wave: wave.wave,
      role: wave.active && view.manifest.role ? view.manifest.role : (roles[String(wave.wave)] ?? DEFAULT_ROLE),
      agents: wave.agents.map((agent, index) => ({
        id: agent.id,
        color: colors[agent.id] ?? LANE_COLORS[index % LANE_COLORS.length] ?? '#3794ff',
        entries: agent.entries.map((entry) => entry.entry),
      })),
    };
  });
  // A manifest naming a wave without declarations still shows as a (empty) tab.
  if (view.activeWave !== null && !waves.some((wave) => wave.wave === view.activeWave)) {
    waves.push({ wave: view.activeWave, role: view.manifest.role ?? roles[String(view.activeWave)] ?? DEFAULT_ROLE, agents: [] });
    waves.sort((a, b) => a.wave - b.wave);
  }
  const plan: PlanDraft = {
    version: 1,
    waves: waves.length > 0 ? waves : [{ wave: 1, role: roles['1'] ?? DEFAULT_ROLE, agents: [] }],
    // A repository without any plan starts with wave 1 as the one the manifest will name.
    activeWave: view.activeWave ?? (view.waves.length === 0 && !view.manifest.found ? 1 : undefined),
  };
  return { plan, problem: problems.length > 0 ? problems.join(' ') : undefined };
}

/** Collisions and contested files of every wave of a draft. */
export interface DraftValidation {
  ok: boolean;
  waves: { wave: number; collisions: CollisionSummary[]; duplicateIds: string[]; contested: string[] }[];
}

export function validateDraft(draft: PlanDraft, files: readonly string[], ignoreCase: boolean): DraftValidation {
  const index = new FileIndex(files, { ignoreCase });
  const waves = draft.waves.map((wave) => {
    const records = wave.agents.map((agent) => ({ id: agent.id, files: agent.entries }));
    const report = findCollisions(records, { knownFiles: index, ignoreCase });
    const matched = expand([...new Set(records.flatMap((record) => record.files))], index, { ignoreCase });
    const owners = new Map<string, Set<string>>();
    for (const record of records) {
      for (const entry of record.files) {
        for (const file of matched.get(entry) ?? []) {
          const set = owners.get(file) ?? new Set<string>();
          set.add(record.id);
          owners.set(file, set);
        }
      }
    }
    return {
      wave: wave.wave,
      collisions: report.collisions.map((collision) => ({
        wave: wave.wave,
        agents: collision.agents,
        entries: collision.entries,
        witness: collision.witness,
      })),
      duplicateIds: report.duplicateIds,
      contested: [...owners].filter(([, ids]) => ids.size > 1).map(([file]) => file).sort(),
    };
  });
  return { ok: waves.every((wave) => wave.collisions.length === 0 && wave.duplicateIds.length === 0), waves };
}

export interface SaveOptions {
  ignoreCase: boolean;
  files: readonly string[];
  /** One of STATE_DIR_NAMES; otherwise the state directory is resolved as the CLI does. */
  stateDirName?: string;
}

/**
 * Saves the whole draft. Nothing is written unless every wave is disjoint. Waves other than the
 * active one are materialized (both shapes); the active wave goes through writeWavePlan, which also
 * writes the manifest. Waves deleted in the planner lose their declaration files (aggregate first).
 */
export function saveDraftToDisk(repoRoot: string, draft: PlanDraft, options: SaveOptions): SaveOutcome {
  const validation = validateDraft(draft, options.files, options.ignoreCase);
  if (!validation.ok) {
    const collisions = validation.waves.flatMap((wave) => wave.collisions);
    const duplicates = validation.waves.flatMap((wave) => wave.duplicateIds.map((id) => `wave ${wave.wave} names "${id}" twice`));
    const first = collisions[0];
    const reason = first
      ? `${collisions.length} collision${collisions.length === 1 ? '' : 's'} (wave ${first.wave}: ${first.agents[0]} and ${first.agents[1]} both own ${first.witness})`
      : duplicates.join('; ');
    return { ok: false, step: 'assert-disjoint', message: `Not saved: the plan is not disjoint, ${reason}. The draft is kept.`, collisions };
  }
  const ownIds = processLocalSessionIds({ env: process.env });
  let stateDir: string;
  if (options.stateDirName !== undefined && (STATE_DIR_NAMES as readonly string[]).includes(options.stateDirName)) {
    stateDir = join(repoRoot, options.stateDirName);
  } else {
    const resolved = resolveWriteStateDir(repoRoot, ownIds, nodeDeclarationFs(repoRoot));
    if ('problem' in resolved) return { ok: false, step: 'state-dir', message: `Not saved: ${resolved.problem}.`, collisions: [] };
    stateDir = resolved.stateDir;
  }
  const fs = nodeDeclarationFs(stateDir);
  const written: number[] = [];
  const ordered = [...draft.waves].sort((a, b) => Number(a.wave === draft.activeWave) - Number(b.wave === draft.activeWave) || a.wave - b.wave);
  for (const wave of ordered) {
    const records = wave.agents.map((agent) => ({ id: agent.id, files: agent.entries }));
    if (wave.wave === draft.activeWave) {
      const result = writeWavePlan(
        { repoRoot, stateDir, wave: wave.wave, role: wave.role, records, ownIds, ignoreCase: options.ignoreCase, knownFiles: options.files },
        fs,
      );
      if (!result.ok) {
        return {
          ok: false,
          step: result.step,
          message: `Not saved completely: wave ${wave.wave} stopped at ${result.step}: ${result.message}.`,
          collisions: (result.collisions ?? []).map((collision) => ({ wave: wave.wave, agents: collision.agents, entries: collision.entries, witness: collision.witness })),
        };
      }
    } else {
      const result = materializeWave({ stateDir, wave: wave.wave, records, repoRoot, ignoreCase: options.ignoreCase }, fs);
      if (!result.ok) {
        const detail = result.reason === 'invalid-input' ? result.errors.map((error) => error.message).join(' ') : result.message;
        return { ok: false, step: 'materialize', message: `Not saved completely: wave ${wave.wave}: ${detail}`, collisions: [] };
      }
    }
    written.push(wave.wave);
  }
  const kept = new Set(draft.waves.map((wave) => wave.wave));
  const removedWaves: number[] = [];
  for (const wave of listDeclaredWaves(stateDir, fs)) {
    if (kept.has(wave)) continue;
    const declaration = readWaveDeclaration(stateDir, wave, fs, { ignoreCase: options.ignoreCase });
    fs.remove(waveSidecarPath(stateDir, wave));
    const ids = new Set([...(declaration.records ?? []).map((record) => record.id), ...(fs.listDir(waveDirPath(stateDir, wave)) ?? []).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5))]);
    for (const id of ids) {
      try {
        fs.remove(agentScopePath(stateDir, wave, id));
      } catch {
        // A name that is not an agent id is not ours to remove.
      }
    }
    removedWaves.push(wave);
  }
  const where = stateDir.slice(repoRoot.length + 1) || stateDir;
  const manifestNote = draft.activeWave !== undefined ? `; the manifest names wave ${draft.activeWave}` : '; no active wave, so the manifest was not touched';
  const removedNote = removedWaves.length > 0 ? `; removed wave ${removedWaves.join(', ')}` : '';
  return {
    ok: true,
    wavesWritten: written.sort((a, b) => a - b),
    manifestWave: draft.activeWave,
    message: `Saved ${written.length} wave${written.length === 1 ? '' : 's'} to ${where}${manifestNote}${removedNote}.`,
  };
}

/** Runs the bundled CLI's `install-hooks` in the repository (the hooks engineer's installer). */
export function installHooksInto(repoRoot: string, extensionPath: string): { ok: boolean; message: string } {
  const cli = join(extensionPath, 'dist', 'cli.js');
  if (!existsSync(cli)) return { ok: false, message: `the bundled CLI is missing (${cli})` };
  // In desktop VS Code process.execPath is Electron: ELECTRON_RUN_AS_NODE makes it a plain Node.
  const run = spawnSync(process.execPath, [cli, 'install-hooks'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    timeout: 60_000,
  });
  const text = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
  if (run.status === 0) return { ok: true, message: text || 'hooks installed' };
  return { ok: false, message: text || `install-hooks exited ${run.status ?? run.signal}` };
}
