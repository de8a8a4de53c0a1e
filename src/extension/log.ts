// The extension's one output channel ("Wave Scope"), and the rule at every boundary where work
// enters the extension (a command, a webview message, a watcher, start-up): catch, log the details
// here, show a person one clear message.
import * as vscode from 'vscode';

/** The Wave Scope output channel. */
export class Log implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Wave Scope', { log: true });

  info(message: string): void {
    this.channel.info(message);
  }

  warn(message: string): void {
    this.channel.warn(message);
  }

  error(message: string): void {
    this.channel.error(message);
  }

  /** Shows the output channel (a result's "Show details"). */
  show(): void {
    this.channel.show(true);
  }

  /** Logs a failure with its stack and shows `Wave Scope: <what> failed: <message>` once. */
  failure(what: string, error: unknown): void {
    this.channel.error(`${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void vscode.window.showErrorMessage(`Wave Scope: ${what} failed: ${errorMessage(error)}`);
  }

  /** Logs a failure that a person does not need to act on (a background refresh). */
  quietFailure(what: string, error: unknown): void {
    this.channel.warn(`${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  dispose(): void {
    this.channel.dispose();
  }
}

/** The message of a thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
