// Wave Scope: Open Planner.
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

export const openPlanner: WaveScopeCommand = {
  id: 'waveScope.openPlanner',
  name: 'Open Planner',
  async run({ planners }, hint) {
    const folder = await pickFolder(hint);
    if (!folder) return undefined;
    planners.open(folder);
    return folder.uri.toString();
  },
};
