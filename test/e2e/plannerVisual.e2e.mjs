// What only a browser shows, in the four default themes and three window sizes (issue 14, bugs 4 and 11
// and the visual check): the planner on the demo plan (its deliberate collisions) has no horizontal
// overflow, no page scrollbar, no clipped control, and every piece of text has a contrast of at least
// 4.5:1 against what is really behind it. Screenshots of each combination are kept as artifacts
// (test/e2e/output/planner-<theme>-<width>x<height>.png, and the planner alone as planner-only-…).
import assert from 'node:assert/strict';
import { artifactPath } from '../support/codeServer.mjs';
import { chooseTheme, layoutProblems, materializeDemoPlan, openPlannerFixture } from './plannerSupport.mjs';

const THEMES = [
  ['Dark Modern', true],
  ['Light Modern', false],
  ['Dark High Contrast', true],
  ['Light High Contrast', false],
];
// 1440×900 and 900×700 windows with the Explorer open (at 900 px the planner gets about 550 px), and a
// 600 px wide window with the side bar closed (the planner gets the whole width).
const SIZES = [
  { width: 1440, height: 900, sideBar: true },
  { width: 900, height: 700, sideBar: true },
  { width: 600, height: 700, sideBar: false },
];

describe('the planner in every default theme and window size', function () {
  const planners = openPlannerFixture();

  it('has no overflow and no clipped control, and its text reaches 4.5:1 in Dark Modern, Light Modern and both High Contrast themes', async function () {
    this.timeout(420000);
    const ctx = await planners.open({ prepare: (fixture) => materializeDemoPlan(fixture.root) });
    const { page, planner } = ctx;
    await planner.locator('.lane[data-agent="docs"] .entry.collides').first().waitFor({ timeout: 30000 });
    // More of the page on screen: the wave settings open, an inline warning at an input, a hover card.
    await planner.locator('.wave-settings-toggle').click();
    await planner.locator('.lane[data-agent="docs"] .glob-input').fill('docs/**/*.{md');
    await planner.locator('.lane[data-agent="docs"] .field-message.is-warning').first().waitFor({ timeout: 5000 });
    // The checks can fail: a grey-on-grey text, an element wider than the page and a button too narrow
    // for its label, put into the page for a moment, are each reported.
    await planner.locator('#planner').evaluate((container) => {
      const probe = document.createElement('div');
      probe.id = 'layout-probe';
      probe.innerHTML =
        '<span class="probe-text">grey on grey</span><div class="probe-wide">wide</div><button class="probe-button">a label far too long for its button</button>';
      container.append(probe);
      for (const [selector, properties] of [
        ['.probe-text', { color: 'rgb(120, 120, 120)', background: 'rgb(140, 140, 140)' }],
        ['.probe-wide', { width: '5000px' }],
        ['.probe-button', { width: '40px', overflow: 'hidden', 'white-space': 'nowrap' }],
      ]) {
        for (const [name, value] of Object.entries(properties)) probe.querySelector(selector).style.setProperty(name, value);
      }
    });
    const probed = await layoutProblems(ctx);
    await planner.locator('#layout-probe').evaluate((probe) => probe.remove());
    assert.ok(probed.contrast.some((line) => line.includes('probe-text')), `contrast check bites: ${JSON.stringify(probed.contrast)}`);
    assert.ok(probed.overflow.some((line) => line.includes('probe-wide')), `overflow check bites: ${JSON.stringify(probed.overflow)}`);
    assert.ok(probed.clipped.some((line) => line.includes('probe-button')), `clipping check bites: ${JSON.stringify(probed.clipped)}`);

    const failures = [];
    try {
      for (const [theme, dark] of THEMES) {
        await chooseTheme(page, ctx, theme, { dark });
        for (const size of SIZES) {
          await page.setViewportSize({ width: size.width, height: size.height });
          const sideBar = page.locator('.part.sidebar');
          if ((await sideBar.isVisible()) !== size.sideBar) {
            await page.keyboard.press('Control+B');
            await sideBar.waitFor({ state: size.sideBar ? 'visible' : 'hidden', timeout: 10000 });
          }
          // Wait for the layout to settle: two frames inside the planner after the resize.
          await planner.locator('html').evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
          const where = `${theme}, ${size.width}×${size.height}${size.sideBar ? '' : ' (side bar closed)'}`;
          const problems = await layoutProblems(ctx);
          for (const [kind, list] of Object.entries(problems)) for (const problem of list) failures.push(`${where}: ${kind}: ${problem}`);
          const name = `${theme.replace(/\s+/g, '-').toLowerCase()}-${size.width}x${size.height}`;
          await page.screenshot({ path: artifactPath(`planner-${name}.png`) });
          await page.locator('iframe.webview.ready').first().screenshot({ path: artifactPath(`planner-only-${name}.png`) });
        }
      }
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
      if (!(await page.locator('.part.sidebar').isVisible())) await page.keyboard.press('Control+B');
      await chooseTheme(page, ctx, 'Dark Modern', { dark: true }).catch(() => {});
    }
    assert.deepEqual(failures, []);
  });
});
