// Wave Scope: Validate Plan: checks every wave of the current draft; the collisions with their
// witnesses go to the output channel, a summary to a message.
import * as vscode from 'vscode';
import type { DraftValidation } from '../../planner/plan/draftSave';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

/** One sentence for the message: disjoint, or how many collisions with the first as an example. */
export function describeValidation(validation: DraftValidation): string {
  if (validation.ok) return `Wave Scope: every wave is disjoint (${validation.waves.length} checked).`;
  const first = validation.waves.flatMap((wave) => wave.collisions.map((collision) => ({ wave: wave.wave, collision })))[0];
  const count = validation.waves.reduce((sum, wave) => sum + wave.collisions.length, 0);
  return first
    ? `Wave Scope: ${count} collision${count === 1 ? '' : 's'}; e.g. wave ${first.wave}: ${first.collision.agents[0]} and ${first.collision.agents[1]} both own ${first.collision.witness}.`
    : 'Wave Scope: the plan has duplicate agent ids.';
}

export const validatePlan: WaveScopeCommand = {
  id: 'waveScope.validatePlan',
  name: 'Validate Plan',
  async run({ log, plans, planners }, hint) {
    const folder = await pickFolder(hint);
    if (!folder) return undefined;
    const plan = await plans.get(folder);
    const draft = await plan.currentDraft(planners.panelFor(folder)?.latestDraft);
    const validation = await planners.validate(draft, await plan.files(), plan.ignoreCase);
    for (const wave of validation.waves) {
      for (const collision of wave.collisions) {
        log.info(
          `wave ${wave.wave}: ${collision.agents[0]} (${collision.entries[0]}) and ${collision.agents[1]} (${collision.entries[1]}) both own ${collision.witness}`,
        );
      }
    }
    const message = describeValidation(validation);
    if (validation.ok) void vscode.window.showInformationMessage(message);
    else void vscode.window.showWarningMessage(message);
    return validation;
  },
};
