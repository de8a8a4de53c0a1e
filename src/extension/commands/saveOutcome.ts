// How a save started outside the planner (the palette's Save, the editor's Narrow) tells its outcome: a
// message in VS Code. A refusal for changes someone made on disk after the draft was made offers to open
// the planner (to see them, load them or overwrite them there) and to overwrite exactly those changes;
// nothing is overwritten unless the person picks that.
import * as vscode from 'vscode';
import { overwriteChoiceOf } from '../../protocol/plannerProtocol';
import type { OverwriteChoice, SaveOutcome } from '../../protocol/plannerProtocol';

/** The button of a `stale` refusal that writes the draft over the changes on disk. */
export const OVERWRITE_CHOICE = 'Overwrite Changes on Disk';

/** The button of a `stale` refusal that shows the folder's planner, where the changes can be seen before choosing. */
export const OPEN_PLANNER_CHOICE = 'Open Planner';

/** What a `stale` refusal's buttons do. */
export interface StaleRefusalActions {
  /** Saves again, writing over what the refusal found on disk (a change made once more is refused again). */
  overwrite(choice: OverwriteChoice): Promise<SaveOutcome>;
  /** Opens (or shows) the folder's planner; `refusal` is the refusal whose message offered it. */
  openPlanner(refusal: SaveOutcome): void;
}

/**
 * Shows `outcome`. For a `stale` refusal the message offers OPEN_PLANNER_CHOICE first (the safe one, the
 * primary button) and OVERWRITE_CHOICE, which calls `overwrite` with the refused waves and the manifest's
 * wave as they were on disk (one changed again meanwhile is refused again). Returns at once: the offer does
 * not hold up the command that saved.
 */
export function showSaveOutcome(outcome: SaveOutcome, actions: StaleRefusalActions): void {
  if (outcome.ok) {
    void vscode.window.showInformationMessage(`Wave Scope: ${outcome.message}`);
    return;
  }
  const choice = overwriteChoiceOf(outcome);
  if (choice === undefined) {
    void vscode.window.showErrorMessage(`Wave Scope: ${outcome.message}`);
    return;
  }
  void vscode.window.showWarningMessage(`Wave Scope: ${outcome.message}`, OPEN_PLANNER_CHOICE, OVERWRITE_CHOICE).then(async (picked) => {
    if (picked === OPEN_PLANNER_CHOICE) actions.openPlanner(outcome);
    if (picked !== OVERWRITE_CHOICE) return;
    showSaveOutcome(await actions.overwrite(choice), actions);
  });
}
