// Wave Scope: Add Wave to Planner, Add Agent to Planner, Filter Planner Files, Undo and Redo Planner
// Edit: the planner's buttons and keys as palette commands (they open the planner first when it is not open).
import type { PlannerActionName } from '../../protocol/plannerProtocol';
import { DidRequestActionNotification } from '../../protocol/plannerProtocol';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

function plannerAction(id: string, name: string, action: PlannerActionName): WaveScopeCommand {
  return {
    id,
    name,
    async run({ planners }, hint) {
      const folder = await pickFolder(hint);
      if (!folder) return undefined;
      planners.open(folder).notify(DidRequestActionNotification, { action });
      return action;
    },
  };
}

export const plannerActions: readonly WaveScopeCommand[] = [
  plannerAction('waveScope.addWave', 'Add Wave to Planner', 'addWave'),
  plannerAction('waveScope.addAgent', 'Add Agent to Planner', 'addAgent'),
  plannerAction('waveScope.focusFileFilter', 'Filter Planner Files', 'focusFilter'),
  plannerAction('waveScope.undoPlannerEdit', 'Undo Planner Edit', 'undo'),
  plannerAction('waveScope.redoPlannerEdit', 'Redo Planner Edit', 'redo'),
];
