// How a save started outside the planner (the palette's Save, the editor's Narrow) tells its outcome: a
// message in VS Code. A refusal for waves someone changed on disk after the draft was made offers to
// overwrite exactly those changes; nothing is overwritten unless the person picks that.
import * as vscode from 'vscode';
import { overwriteChoiceOf } from '../../protocol/plannerProtocol';
import type { OverwriteChoice, SaveOutcome } from '../../protocol/plannerProtocol';

/** The button of a `stale` refusal that writes the draft over the changes on disk. */
export const OVERWRITE_CHOICE = 'Overwrite Changes on Disk';

/**
 * Shows `outcome`. For a `stale` refusal the message offers OVERWRITE_CHOICE, which calls `overwrite` with
 * the refused waves and the manifest's wave as they were on disk (one changed again meanwhile is refused again).
 * Returns at once: the offer does not hold up the command that saved.
 */
export function showSaveOutcome(outcome: SaveOutcome, overwrite: (choice: OverwriteChoice) => Promise<SaveOutcome>): void {
  if (outcome.ok) {
    void vscode.window.showInformationMessage(`Wave Scope: ${outcome.message}`);
    return;
  }
  const choice = overwriteChoiceOf(outcome);
  if (choice === undefined) {
    void vscode.window.showErrorMessage(`Wave Scope: ${outcome.message}`);
    return;
  }
  void vscode.window.showWarningMessage(`Wave Scope: ${outcome.message}`, OVERWRITE_CHOICE).then(async (picked) => {
    if (picked !== OVERWRITE_CHOICE) return;
    showSaveOutcome(await overwrite(choice), overwrite);
  });
}
