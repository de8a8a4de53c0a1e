// Wave Scope: Assign to Agent… (Explorer context menu, multi-selection): adds the chosen files and
// folders (a folder as `dir/`) to an agent of a wave in the planner, creating the wave or the agent.
import * as vscode from 'vscode';
import { isAgentId, MAX_AGENT_ID_LENGTH } from '../../planner/plan/agentId';
import { coordinatorAssignment, coordinatorFileOf, coordinatorFilesNamedBy } from '../../planner/plan/coordinatorFiles';
import { FileIndex } from '../../planner/scope/fileIndex';
import { literalEntryOf, unnameableNotice } from '../../planner/scope/literalEntry';
import { DidAssignNotification } from '../../protocol/plannerProtocol';
import type { WaveScopeCommand } from './command';
import { pickFolder } from './pickFolder';

/** What a caller (a test, another command) may preset instead of asking. */
interface AssignOptions {
  wave?: number;
  agentId?: string;
}

function assignOptions(value: unknown): AssignOptions {
  if (typeof value !== 'object' || value === null) return {};
  const { wave, agentId } = value as Record<string, unknown>;
  return {
    wave: typeof wave === 'number' && Number.isSafeInteger(wave) && wave > 0 ? wave : undefined,
    agentId: typeof agentId === 'string' ? agentId : undefined,
  };
}

function urisOf(clicked: unknown, selected: unknown): vscode.Uri[] {
  const chosen = Array.isArray(selected) && selected.length > 0 ? selected : clicked !== undefined ? [clicked] : [];
  return chosen.filter((uri): uri is vscode.Uri => uri instanceof vscode.Uri);
}

export const assignToAgent: WaveScopeCommand = {
  id: 'waveScope.assignToAgent',
  name: 'Assign to Agent',
  async run({ plans, planners }, clicked, selected, presets) {
    const uris = urisOf(clicked, selected);
    const target = uris[0] ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void vscode.window.showInformationMessage('Wave Scope: choose files or folders in the Explorer to assign.');
      return undefined;
    }
    const folder = await pickFolder(target);
    if (!folder) return undefined;
    const plan = await plans.get(folder);
    const entries: string[] = [];
    const unnameable: string[] = [];
    for (const uri of uris.length > 0 ? uris : [target]) {
      const relative = plan.relativePath(uri);
      if (relative === undefined) continue;
      let isFolder = false;
      try {
        isFolder = (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.Directory;
      } catch {
        isFolder = false;
      }
      const entry = literalEntryOf(relative, { folder: isFolder });
      if (entry === undefined) unnameable.push(relative);
      else entries.push(entry);
    }
    if (unnameable.length > 0) void vscode.window.showWarningMessage(`Wave Scope: ${unnameableNotice(unnameable)}`);
    if (entries.length === 0 && unnameable.length > 0) return undefined;
    if (entries.length === 0) {
      void vscode.window.showWarningMessage('Wave Scope: those paths are outside the repository of this folder.');
      return undefined;
    }
    const options = assignOptions(presets);
    const draft = await plan.currentDraft(planners.panelFor(folder)?.latestDraft);
    let wave = options.wave;
    if (wave === undefined) {
      if (draft.waves.length <= 1) wave = draft.waves[0]?.wave ?? 1;
      else {
        const picked = await vscode.window.showQuickPick(
          draft.waves.map((item) => ({ label: `Wave ${item.wave}`, description: item.role, wave: item.wave })),
          { placeHolder: 'Assign to which wave?' },
        );
        if (!picked) return undefined;
        wave = picked.wave;
      }
    }
    let agentId = options.agentId;
    if (agentId === undefined) {
      const agents = draft.waves.find((item) => item.wave === wave)?.agents ?? [];
      const newAgent = { label: '$(add) New agent…', description: '', isNew: true };
      const picked = await vscode.window.showQuickPick(
        [...agents.map((agent) => ({ label: agent.id, description: `${agent.entries.length} entries`, isNew: false })), newAgent],
        { placeHolder: `Assign ${entries.join(', ')} to which agent of wave ${wave}?` },
      );
      if (!picked) return undefined;
      agentId = picked.isNew
        ? await vscode.window.showInputBox({
            prompt: `New agent id (up to ${MAX_AGENT_ID_LENGTH} letters, digits, "_" or "-")`,
            validateInput: (value) =>
              isAgentId(value) ? undefined : `Use up to ${MAX_AGENT_ID_LENGTH} letters, digits, "_" or "-", starting with a letter or digit.`,
          })
        : picked.label;
      if (!agentId) return undefined;
    }
    // The planner creates the wave and the agent first when they are new.
    planners.open(folder).notify(DidAssignNotification, { wave, agentId, entries });
    // A coordinator file (package.json, a lockfile) is the coordinator's by default: say why, do not refuse.
    const index = new FileIndex(await plan.files(), { ignoreCase: plan.ignoreCase });
    const warnings = entries.flatMap((entry) =>
      coordinatorFilesNamedBy(entry, index, { ignoreCase: plan.ignoreCase }).flatMap((file) => {
        const kind = coordinatorFileOf(file, { ignoreCase: plan.ignoreCase });
        return kind ? [coordinatorAssignment(agentId, entry, file, kind).message] : [];
      }),
    );
    if (warnings.length > 0) void vscode.window.showWarningMessage(`Wave Scope: ${warnings.join(' ')}`);
    return { wave, agentId, entries, warnings };
  },
};
