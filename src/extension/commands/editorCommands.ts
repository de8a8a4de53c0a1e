// The commands the editor's marks link to: Show in Planner (a code action's and a hover's "Open in
// Planner": the folder's planner on the wave a problem is about) and Narrow (one side of a collision
// gives way: the entry is replaced by the files it keeps, and the plan is saved through the planner's
// one draft save, in the plan worker).
import * as vscode from 'vscode';
import { isNameable, literalEntryOf, unnameableNotice } from '../../planner/scope/literalEntry';
import { DidFocusNotification } from '../../protocol/plannerProtocol';
import type { OverwriteChoice, PlanDraft, SaveOutcome } from '../../protocol/plannerProtocol';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';
import { showSaveOutcome } from './saveOutcome';

function folderNamed(value: unknown): vscode.WorkspaceFolder | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const uri = (value as { folderUri?: unknown }).folderUri;
  return (vscode.workspace.workspaceFolders ?? []).find((folder) => folder.uri.toString() === uri);
}

export const showInPlanner: WaveScopeCommand = {
  id: 'waveScope.showInPlanner',
  name: 'Open in Planner',
  async run({ planners }, target) {
    const folder = folderNamed(target) ?? (await pickFolder(target));
    if (!folder) return undefined;
    const panel = planners.open(folder);
    const { wave, file } = (typeof target === 'object' && target !== null ? target : {}) as { wave?: unknown; file?: unknown };
    if (typeof wave === 'number') panel.notify(DidFocusNotification, { wave, ...(typeof file === 'string' ? { file } : {}) });
    return { folder: folder.uri.toString(), wave };
  },
};

/**
 * The draft with one entry of one agent replaced by the files it keeps, each named exactly; undefined when
 * the agent has no such entry, or a kept file has a name no entry can name (a `\`: literalEntryOf).
 */
export function narrowedDraft(draft: PlanDraft, wave: number, agent: string, entry: string, files: readonly string[]): PlanDraft | undefined {
  const target = draft.waves.find((item) => item.wave === wave)?.agents.find((item) => item.id === agent);
  if (!target || !target.entries.includes(entry)) return undefined;
  const named = files.map((file) => literalEntryOf(file));
  if (named.some((file) => file === undefined)) return undefined;
  return {
    ...draft,
    waves: draft.waves.map((item) =>
      item.wave !== wave
        ? item
        : {
            ...item,
            agents: item.agents.map((lane) =>
              lane.id !== agent
                ? lane
                : { ...lane, entries: [...new Set(lane.entries.flatMap((existing) => (existing === entry ? (named as string[]) : [existing])))] },
            ),
          },
    ),
  };
}

export const narrowEntry: WaveScopeCommand = {
  id: 'waveScope.narrowEntry',
  name: 'Narrow',
  async run({ plans, planners, log }, target) {
    const folder = folderNamed(target);
    if (!folder || typeof target !== 'object' || target === null) return undefined;
    const { wave, agent, entry, other, files, confirm } = target as Record<string, unknown>;
    if (typeof wave !== 'number' || typeof agent !== 'string' || typeof entry !== 'string' || !Array.isArray(files)) return undefined;
    const kept = files.filter((file): file is string => typeof file === 'string');
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Wave Scope: narrowing saves the plan; trust this workspace first.');
      return undefined;
    }
    const plan = await plans.get(folder);
    // The draft Narrow changes (the planner's, else the kept unsaved one, else the plan on disk) and the plan
    // on disk it was made from.
    const draft = await plan.currentDraft(planners.panelFor(folder)?.latestDraft);
    const base = await planners.baseOf(folder);
    const next = narrowedDraft(draft, wave, agent, entry, kept);
    if (!next) {
      const unnameable = kept.filter((file) => !isNameable(file));
      throw new Error(unnameable.length > 0 ? unnameableNotice(unnameable) : `wave ${wave} has no agent ${agent} with the entry ${entry} any more`);
    }
    if (confirm !== true) {
      const answer = await vscode.window.showWarningMessage(
        `Narrow ${agent}'s ${entry} to ${kept.length} file${kept.length === 1 ? '' : 's'} so ${String(other)} keeps the shared ones, and save the plan?`,
        { modal: true, detail: kept.join('\n') },
        'Narrow and Save',
      );
      if (answer !== 'Narrow and Save') return undefined;
    }
    const change = { wave, agentId: agent, entry, files: kept };
    const narrowAndSave = async (overwrite?: OverwriteChoice) => {
      const outcome = await planners.saveNarrowing(folder, change, next, base, overwrite);
      log.info(`narrow ${agent}'s ${entry} in wave ${wave}: ${outcome.message}`);
      return outcome;
    };
    const outcome = await narrowAndSave();
    // Open Planner from a refusal hands the planner the narrowing, with the refusal: it is not lost.
    const openPlanner = (refusal: SaveOutcome) => {
      try {
        planners.openOnRefusedNarrowing(folder, { ...change, narrowed: next, base, outcome: refusal });
      } catch (error) {
        log.failure('Opening the planner', error);
      }
    };
    showSaveOutcome(outcome, { overwrite: narrowAndSave, openPlanner });
    return outcome;
  },
};
