// Bundles the in-host suite for the extension host: test/extension/index.ts plus every
// test/extension/**/*.test.ts, one CommonJS file each, into a fresh folder per run,
// node_modules/.cache/wave-scope-host-tests/run-XXXXXX/. Not .test-output/: every `npm test` clears
// that folder when it starts, and in a shared checkout another engineer's run would delete the bundles
// under a running suite. The folder must stay inside the repository: the extension host gives
// `require('vscode')` the API of the extension whose folder holds the requiring file.
// `vscode` is provided by the host; mocha is loaded from node_modules (its CommonJS build: the
// package's main is an ES module wrapper).
import * as esbuild from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../support/codeServer.mjs';

const mochaCommonJs = createRequire(import.meta.url).resolve('mocha/lib/mocha.cjs');

/** Builds the bundles; returns their folder (remove it when done), the suite entry and the test sources. */
export async function buildHostTests() {
  const parent = join(repoRoot, 'node_modules', '.cache', 'wave-scope-host-tests');
  mkdirSync(parent, { recursive: true });
  const hostTestsDir = mkdtempSync(join(parent, 'run-'));
  const sourceDir = join(repoRoot, 'test', 'extension');
  const tests = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && !name.split('/').includes('harness'))
    .map((name) => join(sourceDir, name));
  await esbuild.build({
    entryPoints: [join(sourceDir, 'index.ts'), ...tests],
    outdir: hostTestsDir,
    outbase: sourceDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    external: ['vscode'],
    // As the extension's own build (esbuild.mjs): jsonc-parser's CommonJS build is a UMD wrapper that
    // requires its own files at run time; its ESM build bundles.
    mainFields: ['module', 'main'],
    plugins: [
      {
        name: 'mocha-commonjs',
        setup(build) {
          build.onResolve({ filter: /^mocha$/ }, () => ({ path: mochaCommonJs, external: true }));
        },
      },
    ],
  });
  return { dir: hostTestsDir, entry: join(hostTestsDir, 'index.js'), tests };
}
