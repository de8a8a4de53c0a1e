// Wave Scope: Save Plan (Materialize): saves the planner's newest draft (or the kept one) and shows
// the outcome in VS Code and in an open planner.
import * as vscode from 'vscode';
import { DidSaveNotification } from '../../protocol/plannerProtocol';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

export const savePlan: WaveScopeCommand = {
  id: 'waveScope.savePlan',
  name: 'Save Plan',
  async run({ plans, planners }, hint) {
    const folder = await pickFolder(hint);
    if (!folder) return undefined;
    const plan = await plans.get(folder);
    const panel = planners.panelFor(folder);
    const draft = await plan.currentDraft(panel?.latestDraft);
    const outcome = await planners.save(folder, draft, await planners.baseOf(folder));
    panel?.notify(DidSaveNotification, { outcome, savedDraft: outcome.ok ? draft : undefined });
    if (outcome.ok) void vscode.window.showInformationMessage(`Wave Scope: ${outcome.message}`);
    else void vscode.window.showErrorMessage(`Wave Scope: ${outcome.message}`);
    return outcome;
  },
};
