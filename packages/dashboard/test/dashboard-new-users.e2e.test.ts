/**
 * The dashboard as new users met it (issue #24), in headless Chromium against a real server with
 * VESTA_PUBLIC_URL unset:
 * - the page opened at http://localhost:PORT and at http://127.0.0.1:PORT uploads a corpus clip
 *   (the PUT goes to the page's own origin, under the page's real Content-Security-Policy) and
 *   shows its scores; an upload whose PUT is cut off says why in words and leaves no card behind;
 *   a prompt too long (or missing) is caught before a file is chosen;
 * - GIF clips show as images with Pause/Play on Score, Rank and a Bench run's clip grid; a clip
 *   the browser cannot play (AVI) says so with a download link;
 * - charts carry axis titles and their values; candidates without a rank and clip states are in
 *   words;
 * - the setup page after setup says so and leads to sign-in; sign-in and setup cards are centred
 *   at 1440 px; the Users list shows an accepted invite without a reload; a non-admin opening
 *   /users is told it is for admins; the Dimensions page's models link opens a rendered page.
 * Screenshots (desktop and 390×844) go to test-output/new-users/.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { Vesta } from '@vesta/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from '../../server/test/helpers/core-app.js';
import type { CoreTestServer } from '../../server/test/helpers/core-app.js';
import { snapshotter } from './browser.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(here, '../test-output/new-users');
const snap = snapshotter(OUT);
const ADMIN = { email: 'admin@example.com', password: 'a long admin password' };
const MP4 = 'show-1__panda-selfie.mp4';
const GIF = 'videocrafter2__rubber-duck-sunset.gif';

let server: CoreTestServer;
let browser: Browser;
let port: number;

/** How far the auth card's centre is from the window's centre, in px. */
async function offCentre(page: Page): Promise<number> {
  return page.evaluate(() => {
    const r = document.querySelector('.auth-card')!.getBoundingClientRect();
    return Math.abs(r.left + r.width / 2 - document.documentElement.clientWidth / 2);
  });
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Bench runs' }).waitFor();
}

/** The origins the page PUT clips to. */
function watchPuts(page: Page): string[] {
  const puts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PUT') puts.push(new URL(r.url()).origin);
  });
  return puts;
}

/** Uploads a corpus clip on the Score page and waits for its scores (chart with titled axes). */
async function scoreClip(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: 'Score' }).click();
  await page.getByLabel('Prompt the clip was made from').fill('a panda taking a selfie');
  await page.getByTestId('file-input').setInputFiles(clip(name));
  const card = page.getByTestId('video-card').filter({ hasText: name }).first();
  await card.locator('.state-scored').waitFor({ timeout: 180_000 });
  const chart = card.getByTestId('bar-chart');
  await chart.locator('canvas').waitFor();
  // Both axes are titled, and the bars' values are there in words as well as drawn.
  expect(await chart.getByRole('img').getAttribute('aria-label')).toBe(
    `Scores of ${name}: Score (0 to 1, higher is better) by dimension`,
  );
  const rows = await chart.locator('tbody tr').count();
  expect(rows).toBeGreaterThan(0);
  expect(await chart.locator('tbody td').first().textContent()).toMatch(/^\d\.\d{3}$/);
  // A bar is at most 20 px thick: the chart grows with its bars (none fills a large chart).
  const height = (await chart.boundingBox())!.height;
  expect(height).toBeLessThanOrEqual(rows * 32 + 80);
}

/** A GIF shown as an image: loaded, animated, Pause freezes it on a canvas, Play resumes. */
async function expectGifPlays(scope: Locator): Promise<void> {
  const player = scope.getByTestId('gif-player').first();
  await player.waitFor();
  const img = player.locator('img');
  await waitFor(
    () => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth),
    (w) => typeof w === 'number' && w > 0,
    30_000,
  );
  expect(await img.getAttribute('src')).toMatch(/\/api\/v1\/videos\/[^/]+\/content$/);
  await player.getByRole('button', { name: /^Pause/ }).click();
  await player.locator('canvas').waitFor();
  expect(await img.isVisible()).toBe(false);
  const painted = await player.locator('canvas').evaluate((c: HTMLCanvasElement) => {
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let lit = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i]! + px[i + 1]! + px[i + 2]! > 30) lit++;
    return lit / (px.length / 4);
  });
  expect(painted).toBeGreaterThan(0.05);
  await player.getByRole('button', { name: /^Play/ }).click();
  await img.waitFor();
  // No video element was left trying (and failing) to open the GIF.
  expect(await player.locator('video').count()).toBe(0);
}

describe.skipIf(!haveChromium && !inCi)('the dashboard as new users meet it', () => {
  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    // VESTA_PUBLIC_URL unset (as in the quick start): links follow the origin the page came from.
    server = await startCoreServer({ listen: true, worker: true, env: { VESTA_PUBLIC_URL: '' } });
    port = Number(new URL(server.base).port);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('uploads at localhost and 127.0.0.1, GIFs, failed uploads, setup done, users, docs', async () => {
    const contexts: BrowserContext[] = [];
    const open = async (origin: string, opts: { csp: boolean; width?: number } = { csp: true }) => {
      // With the page's own CSP enforced (as a user has it), or bypassed where axe is injected.
      const ctx = await browser.newContext({
        viewport: { width: opts.width ?? 1280, height: 900 },
        bypassCSP: !opts.csp,
      });
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.on('dialog', (d) => void d.accept());
      return { ctx, page, base: origin };
    };
    const localhost = `http://localhost:${port}`;
    const loopback = `http://127.0.0.1:${port}`;

    // Setup at localhost, at 1440 px: the card is centred; setup done, the page says so.
    const a = await open(localhost, { csp: false, width: 1440 });
    await a.page.goto(`${localhost}/`);
    await a.page.getByRole('heading', { name: 'Set up Vesta' }).waitFor();
    expect(await offCentre(a.page)).toBeLessThanOrEqual(2);
    await a.page.getByLabel('Email').fill(ADMIN.email);
    await a.page.getByLabel(/Password/).fill(ADMIN.password);
    await a.page.getByRole('button', { name: 'Create admin account' }).click();
    await a.page.getByRole('heading', { name: 'Bench runs' }).waitFor();
    await a.page.goto(`${localhost}/dashboard/setup`);
    await a.page.getByRole('heading', { name: 'Vesta is set up' }).waitFor();
    expect(await a.page.getByRole('button', { name: 'Create admin account' }).count()).toBe(0);
    expect(await a.page.getByLabel('Email').count()).toBe(0);
    expect(await offCentre(a.page)).toBeLessThanOrEqual(2);
    await snap(a.page, '01-setup-done');
    await a.page.getByRole('link', { name: 'Go to sign-in' }).click();
    await a.page.waitForURL(/\/dashboard\/(sign-in|bench)$/);

    // Sign-in at 1440 px, centred.
    const s = await open(loopback, { csp: false, width: 1440 });
    await s.page.goto(`${loopback}/dashboard/sign-in`);
    await s.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await offCentre(s.page)).toBeLessThanOrEqual(2);
    await s.ctx.close();

    // Score at http://localhost:PORT with the page's CSP: the PUT goes to localhost, scores appear.
    const l = await open(localhost);
    const localPuts = watchPuts(l.page);
    await l.page.goto(`${localhost}/dashboard/sign-in`);
    await signIn(l.page);
    await l.page.getByRole('navigation').getByRole('link', { name: 'Score' }).click();
    // The prompt is checked before a file is chosen: missing, then too long.
    const choose = l.page.locator('.drop button');
    await l.page.getByTestId('upload-blocked').waitFor();
    expect(await choose.isDisabled()).toBe(true);
    await l.page.getByLabel('Prompt the clip was made from').fill('x'.repeat(2001));
    await l.page
      .getByRole('alert')
      .filter({ hasText: 'The prompt is 2,001 characters long; at most 2,000 are allowed.' })
      .waitFor();
    expect(await choose.isDisabled()).toBe(true);
    expect(await l.page.getByTestId('file-input').isDisabled()).toBe(true);
    await scoreClip(l.page, MP4);
    expect(localPuts).toEqual([localhost]);

    // An upload whose PUT is cut off: the reason in words, and no card left claiming to score.
    await l.page.route('**/api/v1/uploads/**', (route) =>
      route.request().method() === 'PUT' ? route.abort('connectionreset') : route.continue(),
    );
    await l.page.getByTestId('file-input').setInputFiles(clip('zeroscope-v2__toad-karate.mp4'));
    const cut = l.page
      .getByRole('alert')
      .filter({ hasText: 'Could not upload zeroscope-v2__toad-karate.mp4' });
    await cut.waitFor({ timeout: 60_000 });
    expect(await cut.textContent()).toContain('could not be sent to the server');
    expect(await cut.textContent()).not.toContain('token=');
    await l.page.waitForTimeout(2000);
    expect(await l.page.getByTestId('video-card').count()).toBe(1);
    expect(await l.page.getByText(/Scoring…|awaiting_upload/).count()).toBe(0);
    await l.page.unroute('**/api/v1/uploads/**');
    // The clip that never arrived was removed from the session, so a reload shows no card for it.
    await waitFor(
      () =>
        l.page.evaluate(async () => {
          const session = (await (await fetch('/api/v1/score')).json()) as {
            videos: Array<{ state: string }>;
          };
          return session.videos.map((v) => v.state);
        }),
      (states) => states.length === 1 && !states.includes('awaiting_upload'),
      15_000,
    );
    await l.page.reload();
    await l.page.getByTestId('video-card').first().waitFor();
    expect(await l.page.getByTestId('video-card').count()).toBe(1);
    await l.page.getByLabel('Prompt the clip was made from').fill('a rubber duck at sunset');

    // A GIF on Score: shown as an image with Pause/Play, not a black video box.
    await l.page.getByTestId('file-input').setInputFiles(clip(GIF));
    const gifCard = l.page.getByTestId('video-card').filter({ hasText: GIF });
    await expectGifPlays(gifCard);
    await gifCard.locator('.state-scored').waitFor({ timeout: 180_000 });
    await l.ctx.close();

    // The same at http://127.0.0.1:PORT: Score, then Rank with an MP4 and a GIF candidate.
    const p = await open(loopback);
    const loopPuts = watchPuts(p.page);
    await p.page.goto(`${loopback}/dashboard/sign-in`);
    await signIn(p.page);
    await scoreClip(p.page, MP4);
    await p.page.getByRole('navigation').getByRole('link', { name: 'Rank' }).click();
    await p.page.getByLabel('Prompt (locked by the first upload)').fill('a panda taking a selfie');
    await p.page.getByTestId('file-input').setInputFiles(clip(MP4));
    const board = p.page.getByTestId('leaderboard');
    await board.getByRole('cell', { name: MP4, exact: true }).waitFor();
    await board.locator('tbody tr').first().locator('strong').waitFor({ timeout: 180_000 });
    await p.page.getByTestId('file-input').setInputFiles(clip(GIF));
    await board.getByRole('cell', { name: GIF, exact: true }).waitFor();
    // While the GIF has no rank yet, it says so in words (never `#–`), and its state in words.
    const gifRank = await board.locator(`tr:has-text("${GIF}") td`).first().textContent();
    if (!/^\d+$/.test(gifRank ?? '')) expect(gifRank).toBe('not ranked yet');
    expect(await p.page.getByText(/#–|awaiting_upload/).count()).toBe(0);
    await waitFor(
      async () =>
        board.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.children[0]!.textContent)),
      (ranks) => ranks.length === 2 && ranks.every((r) => /^\d+$/.test(r ?? '')),
      180_000,
    );
    const players = p.page.locator('.players');
    expect(await players.locator('video').count()).toBe(1);
    await expectGifPlays(players.locator('figure').filter({ hasText: GIF }));
    const rankChart = p.page.getByTestId('bar-chart');
    expect(await rankChart.getByRole('img').getAttribute('aria-label')).toBe(
      'Candidates per dimension: Score (0 to 1, higher is better) by dimension',
    );
    expect(loopPuts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(loopPuts)).toEqual(new Set([loopback]));
    await p.ctx.close();

    // The rest with CSP bypassed (axe is injected by the screenshots).
    const b = await open(loopback, { csp: false });
    await b.page.goto(`${loopback}/dashboard/sign-in`);
    await signIn(b.page);
    await b.page.getByRole('navigation').getByRole('link', { name: 'Rank' }).click();
    await b.page.getByTestId('gif-player').waitFor();
    await snap(b.page, '02-rank-gif');
    await b.page.getByRole('navigation').getByRole('link', { name: 'Score' }).click();
    await b.page.getByTestId('gif-player').waitFor();
    await snap(b.page, '03-score-gif');
    // A clip the browser cannot play at all (AVI): said in words with a download link, no black box.
    const avi = 'real__opencv-vtest-reencoded-480x360.avi';
    await b.page.getByLabel('Prompt the clip was made from').fill('people walking in a hall');
    await b.page.getByTestId('file-input').setInputFiles(clip(avi));
    const aviCard = b.page.getByTestId('video-card').filter({ hasText: avi });
    await aviCard.getByTestId('player-none').waitFor({ timeout: 60_000 });
    expect(await aviCard.getByTestId('player-none').textContent()).toContain(
      "This browser cannot play this clip's format (video/x-msvideo)",
    );
    expect(await aviCard.getByRole('link', { name: 'Download the clip' }).getAttribute('href')).toMatch(
      /\/api\/v1\/videos\/[^/]+\/content$/,
    );

    // A Bench run whose clips are GIFs (a pipeline returning a corpus GIF): the clip grid shows them.
    await b.page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await b.page.getByLabel('Name').fill('gif pipeline');
    await b.page.getByRole('button', { name: 'Create key' }).click();
    const key = (await b.page.getByTestId('new-key').textContent())!.trim();
    const sdk = new Vesta({ apiKey: key, baseUrl: loopback });
    const run = await sdk.bench.runWithPipeline(() => Promise.resolve(clip(GIF)), {
      dimensions: ['subject_consistency'],
      runName: 'gif run',
      modelId: 'vesta-demo',
      samplesPerPrompt: 1,
      promptsPerDimension: 1,
      pollIntervalMs: 500,
    });
    expect(run.status).toBe('completed');
    await b.page.goto(`${loopback}/dashboard/bench/${run.id}`);
    await b.page.getByRole('heading', { name: 'gif run', level: 1 }).waitFor();
    await expectGifPlays(b.page.locator('.clip-grid'));
    await snap(b.page, '04-bench-run-gif');

    // A run no runner serves: its clips say they wait for a runner (no raw state name).
    const queued = await sdk.bench.create({
      name: 'waiting run',
      modelId: 'vesta-demo',
      dimensions: ['subject_consistency'],
      promptsPerDimension: 1,
      samplesPerPrompt: 1,
    });
    await b.page.goto(`${loopback}/dashboard/bench/${queued.id}`);
    await b.page.getByTestId('run-status').filter({ hasText: 'queued' }).waitFor();
    const clips = b.page.locator('.clip-grid .state');
    if ((await clips.count()) > 0) {
      expect(await clips.first().textContent()).toBe('waiting for a runner');
      expect(await b.page.locator('.clip-grid').getByText('pending', { exact: true }).count()).toBe(0);
    }

    // Dimensions → Models: a rendered page in the dashboard, not raw Markdown.
    await b.page.getByRole('navigation').getByRole('link', { name: 'Dimensions' }).click();
    await b.page.getByRole('heading', { name: 'Dimensions', exact: true, level: 1 }).waitFor();
    await snap(b.page, '05-dimensions');
    await b.page.getByRole('link', { name: 'Models', exact: true }).click();
    await b.page.getByRole('heading', { name: 'Models: the model store', level: 1 }).waitFor();
    expect(b.page.url()).toBe(`${loopback}/dashboard/docs/models`);
    const doc = b.page.locator('article.markdown, article .markdown');
    expect(await doc.locator('table').count()).toBeGreaterThan(0);
    expect(await doc.locator('h2').count()).toBeGreaterThan(2);
    // No Markdown syntax left as text: no heading marks, table rows or bold marks.
    expect(
      await doc
        .locator('p, li')
        .filter({ hasText: /^#{1,6} |^\| |\*\*/ })
        .count(),
    ).toBe(0);
    await snap(b.page, '06-docs-models');

    // Users: an invite accepted elsewhere shows up in the list without a reload.
    await b.page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await b.page.getByLabel('Email').fill('second@example.com');
    await b.page.getByRole('button', { name: 'Create invite link' }).click();
    const link = (await b.page.getByTestId('invite-link').textContent())!.trim();
    expect(link.startsWith(`${loopback}/dashboard/invite#token=`)).toBe(true);
    const second = await open(loopback, { csp: false });
    await second.page.goto(link);
    await second.page.getByLabel(/Password/).fill('second user password');
    await second.page.getByRole('button', { name: 'Create account' }).click();
    await second.page.getByRole('heading', { name: 'Bench runs' }).waitFor();
    await b.page
      .getByTestId('users-table')
      .getByRole('cell', { name: 'second@example.com' })
      .waitFor({ timeout: 15_000 });
    await b.page.getByText('accepted', { exact: true }).waitFor({ timeout: 15_000 });
    await snap(b.page, '07-users-accepted');

    // A non-admin at /users: told it is for admins, no invite form, no error.
    await second.page.goto(`${loopback}/dashboard/users`);
    await second.page.getByRole('heading', { name: 'For admins only' }).waitFor();
    expect(await second.page.getByRole('button', { name: 'Create invite link' }).count()).toBe(0);
    expect(await second.page.getByRole('alert').count()).toBe(0);
    await snap(second.page, '08-users-not-admin');

    for (const c of contexts) await c.close().catch(() => undefined);
  }, 900_000);
});
