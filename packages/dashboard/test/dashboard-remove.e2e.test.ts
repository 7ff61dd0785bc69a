/**
 * Removing one clip on the Score page and one candidate on the Rank page (issue #24 item 7), in
 * headless Chromium against a real server: the "Remove" button asks first, the clip's card (or
 * leaderboard row) goes, the other stays, and the server holds nothing of the removed clip.
 * The same pages say when their scores read nothing of the prompt (item 6: this server has no
 * CLIP model, so no prompt-reading dimension is scored). Screenshots (desktop and 390×844) go to
 * test-output/remove/.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer } from '../../server/test/helpers/core-app.js';
import type { CoreTestServer } from '../../server/test/helpers/core-app.js';
import { onPhone, snapshotter } from './browser.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(here, '../test-output/remove');
const snap = snapshotter(OUT);
const ADMIN = { email: 'remover@example.com', password: 'a long admin password' };
const A = 'show-1__panda-selfie.mp4';
const B = 'zeroscope-v2__toad-karate.mp4';

let server: CoreTestServer;
let browser: Browser;

const rowsOf = (table: 'videos', column: 'file_name') =>
  server.deps.db.selectFrom(table).select(column).execute();

async function upload(page: Page, name: string): Promise<void> {
  await page.getByTestId('file-input').setInputFiles(clip(name));
}

describe.skipIf(!haveChromium && !inCi)('removing one clip in the dashboard', () => {
  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    server = await startCoreServer({ listen: true, worker: true });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('removes a Score clip and a Rank candidate with their Remove buttons; says the scores do not read the prompt', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await ctx.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await page.goto(`${server.base}/`);
    await page.getByRole('heading', { name: 'Set up Vesta' }).waitFor();
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel(/Password/).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create admin account' }).click();
    await page.getByRole('heading', { name: 'Bench runs' }).waitFor();

    // Score: two clips, scored; remove the first.
    await page.getByRole('navigation').getByRole('link', { name: 'Score' }).click();
    await page.getByLabel('Prompt the clip was made from').fill('a panda taking a selfie');
    for (const name of [A, B]) {
      await upload(page, name);
      await page
        .getByTestId('video-card')
        .filter({ hasText: name })
        .locator('.state-scored')
        .waitFor({ timeout: 180_000 });
    }
    // #24 item 6: each scored card says its scores do not read the prompt, and what fixes it.
    const scoreNotice = page.getByTestId('video-card').filter({ hasText: A }).getByTestId('prompt-notice');
    expect(await scoreNotice.textContent()).toBe(
      'Note: these scores do not read the prompt: temporal_style and overall_consistency need the model clip-vit-b32 — run vesta models pull clip-vit-b32 on the server.',
    );
    expect(await page.getByTestId('prompt-notice').count()).toBe(2);
    await snap(page, '01-score-two-clips');
    await page.getByRole('button', { name: `Remove clip ${A}` }).click();
    await page.getByTestId('video-card').filter({ hasText: A }).waitFor({ state: 'detached' });
    expect(dialogs.at(-1)).toBe(`Remove the clip ${A}? Its scores and file are deleted.`);
    expect(await page.getByTestId('video-card').count()).toBe(1);
    expect(await page.getByTestId('video-card').filter({ hasText: B }).count()).toBe(1);
    expect((await rowsOf('videos', 'file_name')).map((r) => r.file_name)).toEqual([B]);

    // Rank: two candidates, ranked; remove one from its leaderboard row.
    await page.getByRole('navigation').getByRole('link', { name: 'Rank' }).click();
    await page.getByLabel(/Prompt/).fill('Toad practicing karate.');
    await upload(page, B);
    await page.getByTestId('locked-prompt').waitFor({ timeout: 60_000 });
    await upload(page, A);
    const board = page.getByTestId('leaderboard');
    // Both ranked: each row shows its overall score.
    await board.locator('tbody tr strong').nth(1).waitFor({ timeout: 180_000 });
    expect(await page.getByTestId('prompt-notice').textContent()).toMatch(
      /^Note: this ranking does not read the prompt: .*overall_consistency.* — run vesta models pull clip-vit-b32 on the server\.$/,
    );
    await snap(page, '02-rank-two-candidates');
    // On a phone (a mobile browser's viewport, not a narrowed desktop window) the page does not
    // scroll sideways: the leaderboard and the per-dimension table scroll inside their card.
    for (const [url, name, ready] of [
      [
        `${server.base}/dashboard/score`,
        'phone-score',
        (p: Page) => p.getByTestId('video-card').first().waitFor(),
      ],
      [
        page.url(),
        'phone-rank',
        (p: Page) => p.getByTestId('leaderboard').locator('tbody tr strong').nth(1).waitFor(),
      ],
    ] as const) {
      const phone = await onPhone(browser, ctx, url, ready, path.join(OUT, `${name}.png`));
      expect(
        phone.overflow,
        `${name}: the page scrolls sideways (${phone.wide.join(', ')})`,
      ).toBeLessThanOrEqual(0);
      for (const r of phone.regions)
        expect(r.width, `${name}: scroll region ${r.name} wider than the screen`).toBeLessThanOrEqual(390);
    }
    await page.getByRole('button', { name: `Remove candidate ${A}` }).click();
    await board.locator('tbody tr').filter({ hasText: A }).waitFor({ state: 'detached' });
    expect(await board.locator('tbody tr').count()).toBe(1);
    expect(await board.locator('tbody tr td').first().textContent()).toBe('1');
    await snap(page, '03-rank-one-removed');
    expect((await rowsOf('videos', 'file_name')).map((r) => r.file_name).sort()).toEqual([B, B]);
    await ctx.close();
  }, 600_000);
});
