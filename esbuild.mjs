// Builds the three shipped bundles. `node esbuild.mjs [--watch]`.
//   dist/cli.js             the headless `wave-scope` command: one file, runs with plain node, nothing beside it
//   dist/extension.js       the VS Code extension host entry (`vscode` stays external)
//   media/dist/planner.js   the planner webview (browser)
import * as esbuild from 'esbuild';
import { chmod, readFile } from 'node:fs/promises';

const watch = process.argv.includes('--watch');

// One source for the version: package.json, injected where the CLI prints it (src/cli/messages.ts).
const { version } = JSON.parse(await readFile(new URL('./package.json', import.meta.url), 'utf8'));

// `hook post-bash|stop|turn-start` load the backstop from its own bundle, so the write gate's bundle stays lean.
const backstopHookOutside = {
  name: 'backstop-hook-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/backstopHook$/ }, () => ({ path: './backstop-hook.js', external: true }));
  },
};

/** @type {esbuild.BuildOptions[]} */
const bundles = [
  {
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The hook's lean entry (`wave-scope hook ...` only): what installed hooks load on every write.
    entryPoints: ['src/cli/hookMain.ts'],
    outfile: 'dist/hook.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Minified: parsing is part of every write's latency (the linked source map keeps traces readable).
    minify: true,
    banner: { js: '#!/usr/bin/env node' },
    plugins: [backstopHookOutside],
  },
  {
    // The backstop's hooks, loaded by dist/hook.js only when one of them is called.
    entryPoints: ['src/cli/commands/backstopHook.ts'],
    outfile: 'dist/backstop-hook.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
  },
  {
    // The dispatch guard's hooks, loaded by dist/hook.js only for `hook pre-dispatch` / `hook subagent-start`.
    entryPoints: ['src/cli/dispatchMain.ts'],
    outfile: 'dist/dispatch.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    // proper-lockfile's default file system; loading it costs more than the decision (see the stand-in).
    alias: { 'graceful-fs': './src/node/gracefulFsStandIn.cjs' },
  },
  {
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    entryPoints: ['webview/main.ts'],
    outfile: 'media/dist/planner.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    // Smaller script, parsed sooner: the planner's open time is a budget (docs/planner.md).
    minify: true,
  },
];

const common = {
  bundle: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
  define: { WAVE_SCOPE_VERSION: JSON.stringify(version) },
};

if (watch) {
  for (const options of bundles) {
    const context = await esbuild.context({ ...common, ...options });
    await context.watch();
  }
} else {
  await Promise.all(bundles.map((options) => esbuild.build({ ...common, ...options })));
  await chmod('dist/cli.js', 0o755);
}
