// Every command the extension registers, one entry per `contributes.commands` item of package.json
// (test/extension/commands.test.ts keeps the two in step).
import { assignToAgent } from './assignToAgent';
import type { WaveScopeCommand } from './command';
import { narrowEntry, showInPlanner } from './editorCommands';
import { installHooks, uninstallHooks, verifyHooks } from './installHooks';
import { openPlanner } from './openPlanner';
import { plannerActions } from './plannerActions';
import { savePlan } from './savePlan';
import { validatePlan } from './validatePlan';

export const COMMANDS: readonly WaveScopeCommand[] = [openPlanner, assignToAgent, savePlan, validatePlan, installHooks, uninstallHooks, verifyHooks, showInPlanner, narrowEntry, ...plannerActions];
