// The one code-server and the one Chromium context an end-to-end run shares. test/e2e/run.mjs
// configures it and closes it; specs call `useWorkbench()` in a `before` hook. The server is started
// on first use only, so a run costs one code-server start however many specs it has. Specs that need
// their own repository make one with makeFixtureRepo() and open it with `openFolder(root)`: the same
// server opens any folder, each time in a fresh page.
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
  let current = browser.page;
  return {
    server,
    browser,
    workspace,
    fixture,
    /**
     * The workbench of `folder` (default: the run's fixture workspace) on a freshly loaded document, so
     * whatever an earlier test left behind (a half-done reload, an open palette or dialog) cannot reach
     * the next one. The page is reused while it lives (a reload of the same site is quicker than a new
     * renderer); a closed or crashed page is replaced, and any other page is closed.
     */
    async openFolder(folder = workspace) {
      const started = Date.now();
      let page = current && !current.isClosed() ? current : undefined;
      try {
        if (!page) throw new Error('no live page');
        await openWorkbench(page, server.folderUrl(folder));
      } catch (error) {
        if (page) log(`the previous page could not load a workbench (${error.message.split('\n')[0]}): using a new page`);
        page = await browser.context.newPage();
        await openWorkbench(page, server.folderUrl(folder));
      }
      current = page;
      for (const other of browser.context.pages()) if (other !== page) await other.close().catch(() => {});
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
