// Builds the shipped bundles. `node esbuild.mjs [--watch]`.
//   dist/launcher.cjs       the hook launcher (src/cli/hookLauncher.ts), built first: its text is embedded in cli.js
//   dist/cli.js             the headless `wave-scope` command: one file, runs with plain node, nothing beside it
//   dist/hook.js            the lean hook entry the launcher loads
//   dist/extension.js       the VS Code extension host entry (`vscode` stays external)
//   dist/planWorker.js      the extension's worker thread for saving and analysing plans
//   media/dist/planner.js   the planner webview (browser)
import * as esbuild from 'esbuild';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const watch = process.argv.includes('--watch');

// One source for the version: package.json, injected where the CLI prints it (src/cli/messages.ts).
const { version } = JSON.parse(await readFile(new URL('./package.json', import.meta.url), 'utf8'));

// `hook post-bash|stop|turn-start` load the backstop from its own bundle, so the write gate's bundle stays lean.
// Through a plain `require` of it: an external `import()` of a CommonJS file goes through Node's ESM
// loader, which scans the whole file for its exports first (a tenth of a post-bash call's time).
const backstopHookOutside = {
  name: 'backstop-hook-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/backstopHook$/ }, () => ({ path: 'backstop-hook', namespace: 'backstop-hook-outside' }));
    build.onLoad({ filter: /.*/, namespace: 'backstop-hook-outside' }, () => ({ contents: 'module.exports = require("./backstop-hook.js");', loader: 'js' }));
    build.onResolve({ filter: /^\.\/backstop-hook\.js$/ }, () => ({ path: './backstop-hook.js', external: true }));
  },
};

// signal-exit 3 (inside proper-lockfile) loads Node's assert for one check; in the dispatch bundle it gets
// the stand-in instead (src/node/assertStandIn.cjs says why). No other import of assert is touched.
const signalExitAssert = {
  name: 'signal-exit-assert',
  setup(build) {
    build.onResolve({ filter: /^assert$/ }, (args) =>
      /[\\/]signal-exit[\\/]/.test(args.importer) ? { path: fileURLToPath(new URL('./src/node/assertStandIn.cjs', import.meta.url)) } : undefined,
    );
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
    // jsonc-parser's CommonJS build is a UMD wrapper that requires its own files at run time; its ESM
    // build bundles.
    mainFields: ['module', 'main'],
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
    plugins: [signalExitAssert],
  },
  {
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: ['module', 'main'],
    external: ['vscode'],
  },
  {
    // The extension's worker thread (saving and analysing plans off the extension host's thread).
    entryPoints: ['src/extension/planWorkerMain.ts'],
    outfile: 'dist/planWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // jsonc-parser's CommonJS build is a UMD wrapper that requires its own files at run time; its ESM build bundles.
    mainFields: ['module', 'main'],
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

// The launcher is a real, typed and linted source file, bundled to one script of its own (every
// installed hook runs it, so it is minified like hook.js) and embedded in cli.js as text, which
// `install-hooks` writes under the state directory with its configuration rendered in.
const launcher = {
  entryPoints: ['src/cli/hookLauncher.ts'],
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: true,
  write: false,
  sourcemap: false,
  banner: {
    js: [
      '#!/usr/bin/env node',
      '// Wave Scope hook launcher, written by "wave-scope install-hooks" (docs/hooks.md). Do not edit:',
      '// "wave-scope install-hooks" rewrites it, "wave-scope install-hooks --uninstall" removes it.',
      '// Source: src/cli/hookLauncher.ts.',
    ].join('\n'),
  },
};

async function launcherText() {
  const result = await esbuild.build({ ...common, ...launcher });
  const text = result.outputFiles[0].text;
  await mkdir('dist', { recursive: true });
  await writeFile('dist/launcher.cjs', text);
  return text;
}

const withLauncher = (options, text) =>
  options.outfile === 'dist/cli.js' ? { ...options, define: { ...common.define, __WAVE_SCOPE_LAUNCHER__: JSON.stringify(text) } } : options;

if (watch) {
  const text = await launcherText();
  for (const options of bundles) {
    const context = await esbuild.context({ ...common, ...withLauncher(options, text) });
    await context.watch();
  }
} else {
  const text = await launcherText();
  await Promise.all(bundles.map((options) => esbuild.build({ ...common, ...withLauncher(options, text) })));
  await chmod('dist/cli.js', 0o755);
}
