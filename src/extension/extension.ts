import type * as vscode from 'vscode';

/** Placeholder until the extension issue lands: activation registers nothing yet. */
export function activate(_context: vscode.ExtensionContext): void {}

export function deactivate(): void {}
