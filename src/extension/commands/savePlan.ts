// Wave Scope: Save Plan (Materialize): saves the planner's newest draft (or the kept one) and shows
// the outcome in VS Code and in an open planner; a refusal for changes on disk offers to open the planner
// or to overwrite them.
import { DidSaveNotification } from '../../protocol/plannerProtocol';
import type { OverwriteChoice } from '../../protocol/plannerProtocol';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';
import { showSaveOutcome } from './saveOutcome';

export const savePlan: WaveScopeCommand = {
  id: 'waveScope.savePlan',
  name: 'Save Plan',
  async run({ plans, planners }, hint) {
    const folder = await pickFolder(hint);
    if (!folder) return undefined;
    const plan = await plans.get(folder);
    const panel = planners.panelFor(folder);
    const draft = await plan.currentDraft(panel?.latestDraft);
    const base = await planners.baseOf(folder);
    const saveAndTell = async (overwrite?: OverwriteChoice) => {
      const outcome = await planners.save(folder, draft, base, overwrite);
      planners.panelFor(folder)?.notify(DidSaveNotification, { outcome, savedDraft: outcome.ok ? draft : undefined });
      return outcome;
    };
    const outcome = await saveAndTell();
    showSaveOutcome(outcome, { overwrite: saveAndTell, openPlanner: () => planners.open(folder) });
    return outcome;
  },
};
