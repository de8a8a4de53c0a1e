// What the installer tells the hook launcher: the Wave Scope CLIs it recorded at install time. The
// launcher is one bundled script (src/cli/hookLauncher.ts, built to text by esbuild.mjs) that carries
// a placeholder string; the installer renders it by putting this configuration, as a JavaScript string
// literal holding JSON, in the placeholder's place. A launcher whose placeholder was never rendered
// reads as a configuration with nothing recorded.

/** The placeholder the launcher bundle carries where its configuration goes. */
export const LAUNCHER_CONFIG_TOKEN = '__WAVE_SCOPE_LAUNCHER_CONFIG__';

export interface LauncherConfig {
  readonly version: 1;
  /**
   * Absolute paths of `dist/cli.js` files the installer found outside the repository (the CLI that ran
   * `install-hooks`, a global install), tried in order after WAVE_SCOPE_CLI and before the editors'
   * extension folders.
   */
  readonly recorded: readonly string[];
}

/** Reads the configuration text; anything that is not one (the unrendered placeholder included) records nothing. */
export function parseLauncherConfig(text: string): LauncherConfig {
  try {
    const value = JSON.parse(text) as { version?: unknown; recorded?: unknown };
    if (value.version === 1 && Array.isArray(value.recorded)) {
      return { version: 1, recorded: value.recorded.filter((path): path is string => typeof path === 'string' && path.startsWith('/')) };
    }
  } catch {
    // Not JSON: nothing recorded.
  }
  return { version: 1, recorded: [] };
}

/** The launcher's text with `config` in place of every quoted placeholder. Throws when the template has none. */
export function renderLauncher(template: string, config: LauncherConfig): string {
  const literal = JSON.stringify(JSON.stringify(config));
  const pieces = template.split(/"__WAVE_SCOPE_LAUNCHER_CONFIG__"|'__WAVE_SCOPE_LAUNCHER_CONFIG__'/);
  if (pieces.length < 2) throw new Error('the hook launcher template carries no configuration placeholder; rebuild wave-scope');
  return pieces.join(literal);
}
