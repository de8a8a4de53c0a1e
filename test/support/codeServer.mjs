// Real-host helpers shared by the extension-host runner, the end-to-end specs, the benchmarks and the
// demo: a code-server (real VS Code server + web workbench) with our extension loaded, Debian's
// Chromium driven by playwright-core, and real temporary git repositories to open in it.
//
// Nothing here mocks VS Code. Every process we start runs in its own process group and is stopped
// as a group, so no extension host or file watcher outlives a run.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository (the extension under test). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where specs and runners put screenshots and other artifacts (gitignored). */
export const artifactsDir = join(repoRoot, 'test', 'e2e', 'output');

/** The dev-only extension that runs the in-host mocha suite on startup. */
export const harnessExtensionDir = join(repoRoot, 'test', 'extension', 'harness');

const startedAt = Date.now();

/** One timestamped progress line on stdout (CI logs are read top to bottom). */
export function log(message) {
  console.log(`[host ${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${message}`);
}

/** `<publisher>.<name>-<version>`: the folder name VS Code expects in an extensions directory. */
export function extensionFolderName(extensionDir) {
  const manifest = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
  return `${manifest.publisher}.${manifest.name}-${manifest.version}`;
}

/** `<publisher>.<name>`: the id `vscode.extensions.getExtension` takes. */
export function extensionId(extensionDir = repoRoot) {
  const manifest = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
  return `${manifest.publisher}.${manifest.name}`;
}

/**
 * Returns the code-server executable: `$WAVE_SCOPE_CODE_SERVER` when set, otherwise whatever
 * test/support/setupBrowserHost.sh prints (it installs what is missing, and is instant when cached).
 */
export function ensureCodeServer() {
  const preset = process.env.WAVE_SCOPE_CODE_SERVER;
  if (preset) {
    if (!existsSync(preset)) throw new Error(`WAVE_SCOPE_CODE_SERVER=${preset} does not exist`);
    return preset;
  }
  const setup = spawnSync('bash', [join(repoRoot, 'test', 'support', 'setupBrowserHost.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const printed = (setup.stdout ?? '').trim().split('\n').pop() ?? '';
  if (setup.status !== 0 || !printed || !existsSync(printed)) {
    throw new Error(`test/support/setupBrowserHost.sh failed (exit ${setup.status ?? setup.signal}); see its output above`);
  }
  return printed;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((wake) => setTimeout(wake, ms));

/** Settings that keep a throwaway workbench quiet and deterministic. */
const quietSettings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
  'window.restoreWindows': 'none',
};

const liveServers = new Set();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // kill() is synchronous, so even an abrupt exit leaves no code-server behind.
  process.on('exit', () => {
    for (const server of liveServers) server.killNow();
  });
  // Ctrl-C: stop every server gracefully (TERM, grace, KILL); a second Ctrl-C kills at once.
  let stopping = false;
  const onSignal = (signal) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (stopping) {
      for (const server of liveServers) server.killNow();
      process.exit(code);
    }
    stopping = true;
    Promise.allSettled([...liveServers].map((server) => server.stop())).then(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Sends `signal` to the process group `pgid` (0 only asks whether it is there); false when it is gone. */
export function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function groupAlive(pgid) {
  return signalGroup(pgid, 0);
}

/**
 * Starts code-server with our extension loaded and waits until /healthz answers.
 *
 * @param {object} [options]
 * @param {string[]} [options.extensions]  extension folders to load (symlinked as publisher.name-version);
 *                                          default: this repository
 * @param {string} [options.vsix]           install this VSIX instead of symlinking folders for our extension
 * @param {Record<string,string>} [options.env]      extra environment (reaches the extension host)
 * @param {Record<string,unknown>} [options.settings] user settings on top of the quiet defaults
 * @param {boolean} [options.trustWorkspaces]  default true: start with --disable-workspace-trust (every
 *                                          folder trusted); false: folders open in Restricted Mode
 * @param {string} [options.codeServer]     executable; default ensureCodeServer()
 * @param {number} [options.port]           default: a free port
 * @param {string} [options.host]           address to listen on (default 127.0.0.1)
 * @param {string} [options.password]       require this password (default: no authentication)
 * @param {number} [options.healthTimeoutMs]
 */
export async function startCodeServer(options = {}) {
  const executable = options.codeServer ?? ensureCodeServer();
  const port = options.port ?? (await freePort());
  const stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-host-')));
  const dirs = {
    userData: join(stateDir, 'user-data'),
    extensions: join(stateDir, 'extensions'),
    tmp: join(stateDir, 'tmp'),
    xdgData: join(stateDir, 'xdg-data'),
    xdgConfig: join(stateDir, 'xdg-config'),
    xdgCache: join(stateDir, 'xdg-cache'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        ...quietSettings,
        // Untrusted runs open in Restricted Mode at once, without the modal trust prompt.
        ...(options.trustWorkspaces === false ? { 'security.workspace.trust.startupPrompt': 'never' } : {}),
        ...(options.settings ?? {}),
      },
      null,
      2,
    ),
  );

  const extensions = options.extensions ?? (options.vsix ? [] : [repoRoot]);
  for (const folder of extensions) {
    symlinkSync(resolve(folder), join(dirs.extensions, extensionFolderName(folder)), 'dir');
  }

  const env = {
    ...process.env,
    ...(options.env ?? {}),
    ...(options.password ? { PASSWORD: options.password } : {}),
    // code-server writes its heartbeat, logs and sockets here; all of it disappears with stateDir.
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_CACHE_HOME: dirs.xdgCache,
    TMPDIR: dirs.tmp,
  };
  const common = ['--config', '/dev/null', '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];

  if (options.vsix) {
    const install = spawnSync(executable, [...common, '--install-extension', resolve(options.vsix)], {
      env,
      encoding: 'utf8',
    });
    if (install.status !== 0) {
      rmSync(stateDir, { recursive: true, force: true });
      throw new Error(`code-server --install-extension ${options.vsix} failed:\n${install.stdout}\n${install.stderr}`);
    }
  }

  const logFile = join(stateDir, 'code-server.log');
  const logFd = openSync(logFile, 'a');
  const args = [
    ...common,
    '--auth',
    options.password ? 'password' : 'none',
    '--bind-addr',
    `${options.host ?? '127.0.0.1'}:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    ...(options.trustWorkspaces === false ? [] : ['--disable-workspace-trust']),
  ];
  // detached: the child calls setsid(2), so it leads a new process group holding code-server, its
  // extension hosts, file watchers and pty hosts. stop() signals that whole group.
  const child = spawn(executable, args, { env, detached: true, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const pgid = child.pid;
  let exited = null;
  child.once('exit', (code, signal) => {
    exited = { code, signal };
  });

  const url = `http://127.0.0.1:${port}`;
  const logTail = (lines = 40) => {
    if (!existsSync(logFile)) return '(no code-server log)';
    return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
  };

  let stopped = false;
  /** Marks the server stopped; false when it already was (each way of stopping runs once). */
  const markStopped = () => {
    if (stopped) return false;
    stopped = true;
    liveServers.delete(server);
    return true;
  };
  const server = {
    url,
    port,
    pid: pgid,
    stateDir,
    logFile,
    extensionsDir: dirs.extensions,
    logTail,
    /** The workbench address that opens `folder` (or a multi-root `.code-workspace` file). */
    folderUrl: (folder) =>
      `${url}/?${folder.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(resolve(folder))}`,
    killNow() {
      if (!markStopped()) return;
      signalGroup(pgid, 'SIGKILL');
      rmSync(stateDir, { recursive: true, force: true });
    },
    /** TERM to the whole group, up to 5 s grace, then KILL; removes the throwaway directories. */
    async stop() {
      if (!markStopped()) return;
      signalGroup(pgid, 'SIGTERM');
      for (let waited = 0; waited < 5000 && groupAlive(pgid); waited += 100) await sleep(100);
      if (groupAlive(pgid)) {
        // It can exit between the check and the signal: then there is nothing left to kill.
        signalGroup(pgid, 'SIGKILL');
        for (let waited = 0; waited < 2000 && groupAlive(pgid); waited += 50) await sleep(50);
      }
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
  liveServers.add(server);
  installExitHook();

  const deadline = Date.now() + (options.healthTimeoutMs ?? 60000);
  for (;;) {
    if (exited) {
      const tail = logTail();
      await server.stop();
      throw new Error(`code-server exited during start-up (${JSON.stringify(exited)}); log tail:\n${tail}`);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      const tail = logTail();
      await server.stop();
      throw new Error(`code-server did not answer ${url}/healthz in time; log tail:\n${tail}`);
    }
    await sleep(100);
  }
  return server;
}

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Console errors every code-server workbench prints, whatever the extension does. */
const knownConsoleNoise = [
  // code-server does not ship Microsoft's closed-source vsda module; the workbench asks for it anyway.
  /\/vsda\//,
  // Leaving or reloading a workbench page.
  /Long running operations during shutdown are unsupported in the web/,
  /IndexedDB database '[^']*' is closed/,
];

/**
 * Launches Debian's Chromium (or `$CHROMIUM`) through playwright-core with a fresh profile. Every page of
 * the returned context reports page errors and console errors to stdout (and keeps them in `errors`).
 */
export async function launchChromium(options = {}) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'wave-scope-chromium-'));
  let context;
  try {
    // Playwright refuses --user-data-dir in args; a persistent context passes the fresh profile itself.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      viewport: options.viewport ?? { width: 1440, height: 900 },
      args: chromiumArgs,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const errors = [];
  const watch = (page) => {
    page.on('pageerror', (error) => {
      errors.push(`pageerror: ${error.message}`);
      console.log(`[browser] pageerror: ${error.message}`);
    });
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const where = message.location()?.url;
      const text = `${message.text()}${where ? ` (${where})` : ''}`;
      if (knownConsoleNoise.some((pattern) => pattern.test(text))) return;
      errors.push(`console: ${text}`);
      if (!options.quiet) console.log(`[browser] console error: ${text}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    errors,
    newPage: () => context.newPage(),
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A code-server and a Chromium of a spec's own, with the workbench open on `folder`: for specs that need
 * server options the shared session (test/e2e/session.mjs) cannot have, such as user settings or
 * workspace trust. `close()` stops both.
 */
export async function startOwnWorkbench(folder, serverOptions = {}) {
  const server = await startCodeServer(serverOptions);
  let browser;
  try {
    browser = await launchChromium({ quiet: true });
    await openWorkbench(browser.page, server.folderUrl(folder));
  } catch (error) {
    await browser?.close();
    await server.stop();
    throw error;
  }
  return {
    server,
    page: browser.page,
    async close() {
      await browser.close();
      await server.stop();
    },
  };
}

/** Loads a workbench address (see `server.folderUrl`) and waits until the workbench is on screen. */
export async function openWorkbench(page, workbenchUrl, { timeoutMs = 90000 } = {}) {
  await page.goto(workbenchUrl);
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
  await page.locator('.part.statusbar').waitFor({ timeout: timeoutMs });
}

/**
 * Opens the command palette (F1), types `title`, and waits until a matching row shows. The palette
 * does not refresh an open list when the extension host registers contributions late, and it can
 * close again as it opens, so it closes and reopens until the row appears. Leaves the palette open; returns the visible row labels.
 */
export async function showInPalette(page, title, { timeoutMs = 60000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input');
  const rows = page.locator('.quick-input-list .monaco-list-row');
  while (Date.now() < deadline) {
    await page.keyboard.press('F1');
    try {
      // The palette can close again at once when focus returns late to the editor it was opened over
      // (a webview that regains focus after the last command ran): then it is opened again.
      await input.waitFor({ timeout: 10000 });
      await input.fill(`>${title}`, { timeout: 5000 });
      await rows.filter({ hasText: title }).first().waitFor({ timeout: 2500 });
      return (await rows.allTextContents()).map((text) => text.trim());
    } catch {
      await page.keyboard.press('Escape');
      await sleep(500);
    }
  }
  throw new Error(`"${title}" never appeared in the command palette within ${timeoutMs / 1000} s`);
}

/** Runs a command by its palette title: F1, type, Enter (retrying while it is not registered yet). */
export async function runCommand(page, title, options = {}) {
  await showInPalette(page, title, options);
  await page.keyboard.press('Enter');
}

/**
 * In the quick input a key chord has just opened (Quick Open, a picker): types `text`, waits up to
 * `timeoutMs` for a row showing `row`, and presses Enter on the first such row.
 */
export async function pickInQuickInput(page, text, { row = text, timeoutMs = 10000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10000 });
  await input.fill(text);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().waitFor({ timeout: timeoutMs });
  await page.keyboard.press('Enter');
}

/**
 * Opens the workspace file at `path` with Quick Open (Ctrl+P), as a person does: types the path, waits for
 * the row of its name, presses Enter, and waits until the file's tab is the active one.
 */
export async function quickOpen(page, path) {
  const name = path.split('/').pop();
  await page.keyboard.press('Control+P');
  await pickInQuickInput(page, path, { row: name, timeoutMs: 20000 });
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 20000 });
}

/**
 * Runs the code action titled `title` at the start of the active editor, as a person at the lightbulb menu
 * would: Ctrl+. until the action is offered (the plan's analysis may still be running), then down to its
 * row by keyboard (the menu's pointer block takes clicks) and Enter.
 */
export async function chooseCodeAction(page, title, { timeoutMs = 60000 } = {}) {
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  const action = page.locator('.action-widget .monaco-list-row', { hasText: title });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.keyboard.press('Control+.');
    try {
      await action.first().waitFor({ timeout: 3000 });
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await page.keyboard.press('Escape');
    }
  }
  const rows = page.locator('.action-widget .monaco-list-row');
  const focusedRow = page.locator('.action-widget .monaco-list-row.focused');
  for (let step = 0; step < 10 && !((await focusedRow.first().textContent()) ?? '').includes(title); step += 1) await page.keyboard.press('ArrowDown');
  assert.ok(((await focusedRow.first().textContent()) ?? '').includes(title), `the focused row is "${title}": ${(await rows.allTextContents()).join(' | ')}`);
  await page.keyboard.press('Enter');
}

/**
 * The planner's document. Webviews are nested iframes: the outer `iframe.webview.ready` (VS Code's
 * host page, whose address names the owning extension) holds `#active-frame`, our HTML.
 */
export function plannerFrame(page, { extension = extensionId() } = {}) {
  return page
    .frameLocator(`iframe.webview.ready[src*="extensionId=${extension}"]`)
    .first()
    .frameLocator('#active-frame');
}

const gitIdentity = {
  GIT_AUTHOR_NAME: 'Wave Scope Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Wave Scope Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

/**
 * A real git repository in a fresh temporary directory.
 * @param {Record<string,string>} files  committed files (relative path → content)
 * @param {object} [options]
 * @param {string} [options.copyFrom]   a directory copied in first (and committed with `files`)
 * @param {Record<string,string>} [options.untracked]  files written after the commit
 * @param {string} [options.prefix]
 */
export function makeFixtureRepo(files = {}, options = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), options.prefix ?? 'wave-scope-fixture-')));
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...gitIdentity } });
  const write = (entries) => {
    for (const [relative, content] of Object.entries(entries)) {
      const target = join(root, relative);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  };
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'core.ignorecase', 'false');
  if (options.copyFrom) cpSync(options.copyFrom, root, { recursive: true });
  write(files);
  git('add', '--all');
  git('commit', '--quiet', '--allow-empty', '-m', 'fixture');
  if (options.untracked) write(options.untracked);
  return {
    root,
    git,
    write,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A file under test/e2e/output/ (created on demand). */
export function artifactPath(name) {
  mkdirSync(artifactsDir, { recursive: true });
  return join(artifactsDir, name.replace(/[^\w.-]+/g, '_'));
}
