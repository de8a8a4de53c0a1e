// The one code-server and the one Chromium context an end-to-end run shares. test/e2e/run.mjs
// configures it and closes it; specs call `useWorkbench()` in a `before` hook. The server is started
// on first use only, so a run costs one code-server start however many specs it has. Specs that need
// their own repository make one with makeFixtureRepo() and open it with `openFolder(root)`: the same
// server opens any folder.
import { resolve } from 'node:path';
import {
  launchChromium,
  log,
  makeFixtureRepo,
  openWorkbench,
  repoRoot,
  startCodeServer,
} from '../support/codeServer.mjs';

const configuration = { fixture: resolve(repoRoot, 'demo', 'repo'), workspace: undefined, env: {} };
let starting;
let session;

/** Called by run.mjs before the specs load. */
export function configureSession({ fixture, workspace, env } = {}) {
  if (fixture) configuration.fixture = resolve(fixture);
  if (workspace) configuration.workspace = resolve(workspace);
  if (env) configuration.env = { ...env };
}

async function start() {
  const fixture = configuration.workspace
    ? undefined
    : makeFixtureRepo({}, { copyFrom: configuration.fixture, prefix: 'wave-scope-e2e-fixture-' });
  const workspace = configuration.workspace ?? fixture.root;
  const server = await startCodeServer({ env: { ...configuration.env, WAVE_SCOPE_E2E_WORKSPACE: workspace } });
  log(`code-server ${server.url} is healthy; fixture workspace ${workspace}`);
  const browser = await launchChromium();
  return {
    server,
    browser,
    workspace,
    fixture,
    /** The shared page, showing the workbench of `folder` (default: the run's fixture workspace). */
    async openFolder(folder = workspace, page = browser.page) {
      const started = Date.now();
      await openWorkbench(page, server.folderUrl(folder));
      log(`workbench of ${folder} visible after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return page;
    },
  };
}

/**
 * Starts (once) and returns {server, browser, workspace, openFolder}. Give the calling hook a
 * generous timeout: the first call waits for code-server.
 */
export function useWorkbench() {
  starting ??= start().then((started) => {
    session = started;
    return started;
  });
  return starting;
}

/** The session if it was started (for failure diagnostics), else undefined. */
export function currentSession() {
  return session;
}

/** Stops everything the session started. */
export async function closeSession() {
  if (!starting) return;
  const started = await starting.catch(() => undefined);
  if (!started) return;
  await started.browser.close();
  await started.server.stop();
  started.fixture?.remove();
}
