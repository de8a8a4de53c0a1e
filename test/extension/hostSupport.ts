// Helpers the in-host tests share (bundled into each test file; not a test file itself).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { WaveScopeApi } from '../../src/extension/extension';

/** The id `vscode.extensions.getExtension` takes. */
export const extensionId = 'wave-scope.wave-scope';

/** Polls `probe` every 50 ms until it returns something other than undefined or false (a condition, not a fixed sleep). */
export async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

/** Activates Wave Scope (if it is not yet) and returns what activate() returned. */
export async function waveScopeApi(): Promise<WaveScopeApi> {
  const extension = vscode.extensions.getExtension<WaveScopeApi>(extensionId);
  assert.ok(extension, 'Wave Scope is installed');
  return extension.activate();
}
