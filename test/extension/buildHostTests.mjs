// Bundles the in-host suite for the extension host: test/extension/index.ts plus every
// test/extension/**/*.test.ts, one CommonJS file each, into .test-output/extension-host/.
// `vscode` is provided by the host; mocha is loaded from node_modules (its CommonJS build: the
// package's main is an ES module wrapper).
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../support/codeServer.mjs';

export const hostTestsDir = join(repoRoot, '.test-output', 'extension-host');

const mochaCommonJs = createRequire(import.meta.url).resolve('mocha/lib/mocha.cjs');

/** Builds the bundles and returns the path of the suite entry (`index.js`). */
export async function buildHostTests() {
  const sourceDir = join(repoRoot, 'test', 'extension');
  const tests = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && !name.split('/').includes('harness'))
    .map((name) => join(sourceDir, name));
  rmSync(hostTestsDir, { recursive: true, force: true });
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
  return { entry: join(hostTestsDir, 'index.js'), tests };
}
