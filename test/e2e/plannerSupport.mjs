// Steps the planner's end-to-end specs share: a fresh repository opened in a fresh workbench page with
// the planner on it, lanes and entries made with the gestures a person uses, conditions waited for (never
// a fixed sleep), and the checks of what only a browser shows (overflow, clipped controls, contrast).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFixtureRepo, pickInQuickInput, plannerFrame, repoRoot, runCommand, startOwnWorkbench } from '../support/codeServer.mjs';
import { useWorkbench } from './session.mjs';

/** Polls `probe` until it returns something truthy. */
export async function until(what, probe, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** The draft records the extension kept in its workspace storage (under code-server's user data). */
export function keptDraftRecords(stateDir) {
  const records = [];
  const userData = join(stateDir, 'user-data');
  if (!existsSync(userData)) return records;
  for (const name of readdirSync(userData, { recursive: true, encoding: 'utf8' })) {
    if (!/wave-scope\.wave-scope[\\/]drafts[\\/][0-9a-f]{32}\.json$/.test(name)) continue;
    try {
      records.push(JSON.parse(readFileSync(join(userData, name), 'utf8')));
    } catch {
      // Being replaced right now: the next poll reads it.
    }
  }
  return records;
}

/**
 * The workbench and the fixtures of the calling `describe`, for specs whose every test opens the planner
 * on a repository of its own: the shared workbench session is taken before the first test, and every
 * fixture is removed after the last. Returns `open(options)`, which opens the planner on a fresh fixture
 * (the options of `openPlanner`); `fixtures`, for anything else a test wants removed with them; and
 * `session`, the workbench session (set once the `before` hook has run).
 */
export function openPlannerFixture() {
  const fixtures = [];
  const workbench = {
    session: undefined,
    fixtures,
    open: (options) => openPlanner(workbench.session, fixtures, options),
  };
  before(async function () {
    this.timeout(240000);
    workbench.session = await useWorkbench();
  });
  after(() => {
    for (const fixture of fixtures) fixture.remove();
  });
  return workbench;
}

/**
 * A workbench of the calling `describe`'s own, for specs that must not touch the shared one (their own
 * settings, environment or workspace trust): before the first test, a fresh copy of the demo repository
 * (its temporary directory named from `prefix`; `prepare(fixture)` runs on it before the server starts),
 * opened by `startOwnWorkbench` with `serverOptions`; after the last, the workbench closed and the copy
 * removed. Returns a holder whose `workbench` and `fixture` are set once the `before` hook has run.
 */
export function ownWorkbenchFixture(prefix, serverOptions, { prepare } = {}) {
  const own = { workbench: undefined, fixture: undefined };
  before(async function () {
    this.timeout(240000);
    own.fixture = makeFixtureRepo({}, { copyFrom: join(repoRoot, 'demo', 'repo'), prefix });
    prepare?.(own.fixture);
    own.workbench = await startOwnWorkbench(own.fixture.root, serverOptions);
  });
  after(async () => {
    await own.workbench?.close();
    own.fixture?.remove();
  });
  return own;
}

/**
 * The built CLI in `cwd`, as a person (or, with `session`, an agent session: CLAUDE_CODE_SESSION_ID) runs it,
 * none of the environment's WAVE_SCOPE_ settings passed on; fails the test on a non-zero exit. Its stdout.
 */
export function runWaveScope(cwd, args, { input = '', session } = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('WAVE_SCOPE_') || key === 'CLAUDE_CODE_SESSION_ID') delete env[key];
  if (session) env.CLAUDE_CODE_SESSION_ID = session;
  const run = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { cwd, input, env, encoding: 'utf8' });
  assert.equal(run.status, 0, `wave-scope ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Writes the demo plan (demo/wave-1.json) into the repository at `root` as wave 1, with the built CLI. */
export function materializeDemoPlan(root) {
  runWaveScope(root, ['materialize', '--state-dir', '.claude', '--wave', '1'], { input: readFileSync(join(repoRoot, 'demo', 'wave-1.json'), 'utf8') });
}

/**
 * A fresh copy of the demo repository (plus `files` and `untracked`), its workbench in a fresh page, the
 * planner open on it. Waits for the tree row at path `row` when given, else for the painted tree and its
 * first row. Returns the locators the specs use.
 */
export async function openPlanner(session, fixtures, { files = {}, untracked, copyFrom = join(repoRoot, 'demo', 'repo'), prepare, row } = {}) {
  const fixture = makeFixtureRepo(files, { copyFrom, prefix: 'wave-scope-planner-e2e-', untracked });
  fixtures.push(fixture);
  prepare?.(fixture);
  const page = await session.openFolder(fixture.root);
  await runCommand(page, 'Wave Scope: Open Planner');
  const planner = plannerFrame(page);
  if (row === undefined) {
    await planner.locator('body[data-tree-shown-ms]').waitFor({ state: 'attached', timeout: 60000 });
    await planner.locator('.tree-row').first().waitFor({ timeout: 60000 });
  } else {
    await planner.locator(`.tree-row[data-path="${row}"]`).waitFor({ timeout: 60000 });
  }
  return plannerContext(page, fixture);
}

/** Locators of the planner of `page`. */
export function plannerContext(page, fixture) {
  const planner = plannerFrame(page);
  const lane = (id) => planner.locator(`.lane[data-agent="${id}"]`);
  const entry = (agent, spelling) => lane(agent).locator(`.entry[data-entry="${spelling}"]`);
  return { fixture, page, planner, lane, entry };
}

/** Adds lanes agent-1 … agent-N with the board's button. */
export async function addAgents({ planner, lane }, count = 2) {
  for (let i = 1; i <= count; i += 1) {
    await planner.locator('button.add-agent').click();
    await lane(`agent-${i}`).waitFor({ timeout: 10000 });
  }
}

/** Types an entry into a lane's input and presses Enter; waits for it when it should join the lane. */
export async function typeEntry({ lane, entry }, agent, text, { expect = text } = {}) {
  const input = lane(agent).locator('.glob-input');
  await input.fill(text);
  await input.press('Enter');
  if (expect) await entry(agent, expect).waitFor({ timeout: 10000 });
}

/** Puts the keyboard focus inside the planner's document without pressing any of its controls. */
export async function focusPlanner({ planner }) {
  await planner.locator('.summary-wave').click();
}

/** Runs a check inside the planner's document. */
export function inPlanner({ planner }, check, argument) {
  return planner.locator('html').evaluate(check, argument);
}

/**
 * What only a browser shows, measured in the planner's document: anything wider than the page, a
 * control cut by its container or the window, and text below 4.5:1 against what is really behind it.
 * Returns lists of problems (empty when the layout holds).
 */
export function layoutProblems(context) {
  return inPlanner(context, () => {
    const width = window.innerWidth;
    const height = window.innerHeight;
    const problems = { overflow: [], clipped: [], contrast: [], page: [] };
    const name = (element) => {
      const classes = [...element.classList].slice(0, 2).join('.');
      const label = element.getAttribute('aria-label') || element.textContent?.trim().slice(0, 40) || '';
      return `${element.tagName.toLowerCase()}${classes ? `.${classes}` : ''} "${label}"`;
    };
    const visible = (element) => {
      if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
      const rect = element.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0;
    };
    const scrolls = (element, axis) => {
      const style = getComputedStyle(element);
      const overflow = axis === 'x' ? style.overflowX : style.overflowY;
      return overflow === 'auto' || overflow === 'scroll';
    };
    const clips = (element) => {
      const style = getComputedStyle(element);
      return style.overflowX !== 'visible' || style.overflowY !== 'visible';
    };
    // The page itself: no scrollbars of its own (issue 14, bug 11: it was 12 px too tall).
    const root = document.documentElement;
    if (root.scrollWidth > width + 0.5) problems.page.push(`the page is ${root.scrollWidth - width} px too wide`);
    if (root.scrollHeight > height + 0.5) problems.page.push(`the page is ${root.scrollHeight - height} px too tall`);
    const app = document.getElementById('planner');
    if (app) {
      const rect = app.getBoundingClientRect();
      if (rect.bottom > height + 0.5) problems.page.push(`the planner ends ${Math.round(rect.bottom - height)} px below the window`);
    }
    // Nothing sticks out of the window sideways, unless it is inside something that scrolls sideways.
    for (const element of document.querySelectorAll('#planner *')) {
      if (!(element instanceof HTMLElement) || !visible(element)) continue;
      const rect = element.getBoundingClientRect();
      if (rect.right <= width + 0.5 && rect.left >= -0.5) continue;
      let scroller = element.parentElement;
      while (scroller && !(scrolls(scroller, 'x') && scroller.scrollWidth > scroller.clientWidth)) scroller = scroller.parentElement;
      if (!scroller) problems.overflow.push(`${name(element)} spans ${Math.round(rect.left)}–${Math.round(rect.right)} of ${width} px`);
    }
    // Controls: whole, not cut by a container that does not scroll, their own content not cut.
    const controls = document.querySelectorAll('#planner button, #planner input, #planner vscode-button, #planner vscode-textfield, #planner [role="tab"], #planner .state-pill, #planner .match-count');
    for (const control of controls) {
      if (!(control instanceof HTMLElement) || !visible(control)) continue;
      const rect = control.getBoundingClientRect();
      if (!(control instanceof HTMLInputElement) && control.scrollWidth > control.clientWidth + 1 && getComputedStyle(control).overflowX !== 'visible') {
        problems.clipped.push(`${name(control)} shows ${control.clientWidth} of its ${control.scrollWidth} px`);
        continue;
      }
      if (rect.right > width + 0.5 || rect.bottom > height + 0.5 || rect.left < -0.5 || rect.top < -0.5) {
        let scroller = control.parentElement;
        while (scroller && !(scrolls(scroller, 'x') || scrolls(scroller, 'y'))) scroller = scroller.parentElement;
        if (!scroller) problems.clipped.push(`${name(control)} is cut by the window (${Math.round(rect.left)},${Math.round(rect.top)}–${Math.round(rect.right)},${Math.round(rect.bottom)})`);
        continue;
      }
      for (let parent = control.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        if (!clips(parent)) continue;
        const box = parent.getBoundingClientRect();
        const cut = rect.left < box.left - 0.5 || rect.right > box.right + 0.5 || rect.top < box.top - 0.5 || rect.bottom > box.bottom + 0.5;
        const outside = rect.right <= box.left || rect.left >= box.right || rect.bottom <= box.top || rect.top >= box.bottom;
        // A row scrolled partly out of a scrolling list is scrolled, not clipped.
        if (cut && !outside && !(scrolls(parent, 'x') || scrolls(parent, 'y'))) {
          problems.clipped.push(`${name(control)} is cut by ${name(parent)}`);
          break;
        }
      }
    }
    // Contrast of every piece of text against the colours really behind it (WCAG 2 relative luminance).
    const parse = (color) => {
      const match = color.match(/rgba?\(([^)]+)\)/);
      if (!match) return [0, 0, 0, 0];
      const parts = match[1].split(/[\s,/]+/).filter(Boolean).map(Number);
      return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
    };
    const over = (top, bottom) => {
      const alpha = top[3] + bottom[3] * (1 - top[3]);
      if (alpha === 0) return [0, 0, 0, 0];
      const mix = (i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / alpha;
      return [mix(0), mix(1), mix(2), alpha];
    };
    const luminance = ([r, g, b]) => {
      const channel = (value) => {
        const v = value / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const backgroundOf = (element) => {
      const layers = [];
      for (let node = element; node; node = node.parentElement ?? (node.getRootNode() instanceof ShadowRoot ? node.getRootNode().host : null)) {
        const color = parse(getComputedStyle(node).backgroundColor);
        if (color[3] > 0) layers.push(color);
        if (color[3] >= 1) break;
      }
      let result = parse(getComputedStyle(document.documentElement).backgroundColor);
      if (result[3] < 1) result = [255, 255, 255, 1];
      for (const layer of layers.reverse()) result = over(layer, result);
      return result;
    };
    const checked = new Set();
    const walker = document.createTreeWalker(document.getElementById('planner') ?? document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent?.trim()) continue;
      const element = node.parentElement;
      if (!element || checked.has(element) || !visible(element)) continue;
      checked.add(element);
      // Inactive controls are exempt from WCAG's contrast minimum.
      if (element.closest('button:disabled, [aria-disabled="true"]')) continue;
      const style = getComputedStyle(element);
      let fg = parse(style.color);
      let opacity = 1;
      for (let node2 = element; node2; node2 = node2.parentElement) opacity *= Number(getComputedStyle(node2).opacity);
      fg = [fg[0], fg[1], fg[2], fg[3] * opacity];
      const bg = backgroundOf(element);
      const text = over(fg, bg);
      const [light, dark] = [luminance(text), luminance(bg)].sort((a, b) => b - a);
      const ratio = (light + 0.05) / (dark + 0.05);
      if (ratio < 4.5) problems.contrast.push(`${name(element)}: ${ratio.toFixed(2)}:1 (${style.color} on rgb(${bg.slice(0, 3).map(Math.round).join(', ')}))`);
    }
    for (const input of document.querySelectorAll('#planner input[type="text"], #planner input:not([type]), #planner input[type="search"], #planner input[type="number"]')) {
      if (!visible(input) || !input.value) continue;
      const fg = parse(getComputedStyle(input).color);
      const bg = backgroundOf(input);
      const [light, dark] = [luminance(over(fg, bg)), luminance(bg)].sort((a, b) => b - a);
      const ratio = (light + 0.05) / (dark + 0.05);
      if (ratio < 4.5) problems.contrast.push(`${name(input)} value: ${ratio.toFixed(2)}:1`);
    }
    return problems;
  });
}

/**
 * Picks a colour theme with VS Code's own picker (by its key chord: the palette would also offer "Browse
 * Color Themes in Marketplace") and waits until the planner's background follows it; returns that
 * background colour.
 */
export async function chooseTheme(page, { planner }, theme, { dark }) {
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  await pickInQuickInput(page, theme);
  return planner.locator('body').evaluate(
    (element, { dark, timeoutMs, highContrast }) =>
      new Promise((resolve, reject) => {
        const deadline = performance.now() + timeoutMs;
        const check = () => {
          const color = getComputedStyle(element).backgroundColor;
          const [r = 0, g = 0, b = 0] = (color.match(/\d+/g) ?? []).map(Number);
          const luminance = (r + g + b) / 3;
          // High contrast themes also set contrastBorder; the modern ones do not.
          const border = getComputedStyle(document.documentElement).getPropertyValue('--vscode-contrastBorder').trim();
          if ((dark ? luminance < 40 : luminance > 200) && Boolean(border) === highContrast) resolve(color);
          else if (performance.now() > deadline) reject(new Error(`planner background ${color} does not follow the theme`));
          else setTimeout(check, 50);
        };
        check();
      }),
    { dark, timeoutMs: 15000, highContrast: /High Contrast/.test(theme) },
  );
}
