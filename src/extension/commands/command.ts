// What a command is (its id, the name a failure message uses, its body) and how the command table is
// registered: every command runs behind the same boundary (catch, log to the output channel, show one
// clear message), and every registration goes into the extension's subscriptions.
import * as vscode from 'vscode';
import type { ContestedDecorations } from '../contestedDecorations';
import type { FolderPlans } from '../folderPlans';
import type { Log } from '../log';
import type { PlanInsights } from '../planInsights';
import type { PlannerPanels } from '../plannerPanels';

/** What command bodies work with. */
export interface CommandServices {
  readonly extensionUri: vscode.Uri;
  readonly log: Log;
  readonly plans: FolderPlans;
  readonly planners: PlannerPanels;
  readonly decorations: ContestedDecorations;
  readonly insights: PlanInsights;
}

/** One palette (or menu) command. */
export interface WaveScopeCommand {
  /** `waveScope.<verbNoun>`, as package.json contributes it. */
  readonly id: string;
  /** How a failure message names it ("Wave Scope: Save Plan failed: …"). */
  readonly name: string;
  /** The body; its arguments come from VS Code (a clicked URI, a selection) or a caller, so they are checked. */
  run(services: CommandServices, ...args: unknown[]): Promise<unknown>;
}

/** Registers every command of `table` behind the boundary; the registrations go into `subscriptions`. */
export function registerCommands(subscriptions: vscode.Disposable[], services: CommandServices, table: readonly WaveScopeCommand[]): void {
  for (const command of table) {
    subscriptions.push(
      vscode.commands.registerCommand(command.id, async (...args: unknown[]) => {
        try {
          return await command.run(services, ...args);
        } catch (error) {
          services.log.failure(command.name, error);
          return undefined;
        }
      }),
    );
  }
}
