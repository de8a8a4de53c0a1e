// Bundles the in-host suite for the extension host: test/extension/index.ts plus every
// test/extension/**/*.test.ts, one CommonJS file each, into a fresh .test-output/extension-host-XXXXXX/
// (one per run, so two runs in the same checkout never clear each other's bundles).
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
  mkdirSync(join(repoRoot, '.test-output'), { recursive: true });
  const hostTestsDir = mkdtempSync(join(repoRoot, '.test-output', 'extension-host-'));
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
