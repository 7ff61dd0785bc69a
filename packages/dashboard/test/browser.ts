/**
 * What the dashboard's browser tests share: axe-core on a page, and a page's screenshots at the
 * desktop size and on a phone (390×844) with the phone layout's checks.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const AXE = readFileSync(path.resolve(here, '../../../node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is now: no serious or critical violation. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: () => Promise<{
            violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
  });
  expect(violations, `${name}: accessibility violations`).toEqual([]);
}

/** Waits for two frames (layout, and a chart's redraw after a resize). */
export const settle = (page: Page) =>
  page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );

/**
 * The page as it is now, at the desktop size and on a phone (390×844): a screenshot of each, axe at
 * each, and on the phone no sideways scrolling of the page (wide tables scroll inside their card),
 * content the full width of the screen (no sidebar beside it) and, on signed-in pages, the
 * navigation folded behind its Menu button, which opens it.
 */
export function snapshotter(OUT: string) {
  return async function snap(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
    await expectAccessible(page, name);
    const desktop = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await settle(page);
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(OUT, `${name}-390.png`), fullPage: true });
      const layout = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        // What sticks out past the screen's right edge, to name it in the failure.
        const wide = Array.from(document.querySelectorAll('body *'))
          .filter((e) => e.getBoundingClientRect().right > width + 1)
          .filter((e) => {
            // Not inside a box that scrolls or clips it (a table in its scroll region); an
            // absolutely placed element may escape such a box, so it is always named.
            if (getComputedStyle(e).position === 'absolute') return true;
            for (let p = e.parentElement; p && p !== document.body; p = p.parentElement)
              if (getComputedStyle(p).overflowX !== 'visible') return false;
            return true;
          })
          .slice(0, 5)
          .map((e) => `${e.tagName.toLowerCase()}.${Array.from(e.classList).join('.')}`);
        return {
          overflow: document.documentElement.scrollWidth - width,
          main: document.querySelector('main')?.getBoundingClientRect().width ?? 0,
          wide,
        };
      });
      expect(
        layout.overflow,
        `${name} at 390 px: the page scrolls sideways (${layout.wide.join(', ')})`,
      ).toBeLessThanOrEqual(0);
      expect(layout.main, `${name} at 390 px: the content's width`).toBeGreaterThanOrEqual(360);
      const menu = page.getByRole('button', { name: 'Menu' });
      if ((await menu.count()) > 0) {
        const nav = page.getByRole('navigation', { name: 'Main' });
        expect(await nav.isVisible(), `${name} at 390 px: navigation folded`).toBe(false);
        await menu.click();
        await nav.getByRole('link', { name: 'Score' }).waitFor();
        if (name.startsWith('02')) await page.screenshot({ path: path.join(OUT, `${name}-390-menu.png`) });
        await menu.click();
        await nav.waitFor({ state: 'hidden' });
        // From the keyboard too: Escape folds it again and focus returns to Menu.
        await menu.click();
        await nav.getByRole('link', { name: 'Score' }).focus();
        await page.keyboard.press('Escape');
        await nav.waitFor({ state: 'hidden' });
        expect(await menu.evaluate((b) => b === document.activeElement)).toBe(true);
      }
      await expectAccessible(page, `${name} at 390 px`);
    } finally {
      await page.setViewportSize(desktop);
      await settle(page);
    }
  };
}

/**
 * The page's address opened on an emulated phone (390×844, a mobile browser's viewport handling and
 * touch, signed in as `context` is), then: how far the page itself scrolls sideways (0 when wide
 * tables scroll inside their card), what sticks out past the screen's edge outside a scroller, and
 * each scroll region's own width against what it holds. A phone screenshot is written to `file`.
 */
export async function onPhone(
  browser: Browser,
  context: BrowserContext,
  url: string,
  ready: (p: Page) => Promise<unknown>,
  file: string,
): Promise<{
  overflow: number;
  wide: string[];
  regions: Array<{ name: string; width: number; scrolls: boolean }>;
}> {
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    bypassCSP: true,
    storageState: await context.storageState(),
  });
  try {
    const page = await phone.newPage();
    await page.goto(url);
    await ready(page);
    await settle(page);
    await page.screenshot({ path: file, fullPage: true });
    return await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide = Array.from(document.querySelectorAll('body *'))
        .filter((e) => e.getBoundingClientRect().right > width + 1)
        .filter((e) => {
          for (let p = e.parentElement; p && p !== document.body; p = p.parentElement)
            if (getComputedStyle(p).overflowX !== 'visible') return false;
          return true;
        })
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${Array.from(e.classList).join('.')}`);
      const regions = Array.from(document.querySelectorAll('.table-wrap')).map((r) => ({
        name: r.getAttribute('aria-label') ?? '',
        width: Math.round(r.getBoundingClientRect().width),
        scrolls: r.scrollWidth > r.clientWidth,
      }));
      return {
        overflow: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - width,
        wide,
        regions,
      };
    });
  } finally {
    await phone.close();
  }
}
