/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
 * server on a fresh data directory: first-run setup, sign-in, an API key made in the page that
 * then works with X-API-Key and answers 401 once revoked, a corpus clip scored on the Score page
 * with its chart (the file name and prompt carry an XSS attempt that must show as text), an
 * upload of a non-video whose API error is shown in words, players that stream stored clips
 * (GET /api/v1/videos/{id}/content, with a byte range), two Rank candidates in /ranked's order,
 * Bench runs made in the form and served by a spawned `vesta runner start --demo` to `completed`
 * (chart, CSV downloaded byte-equal to /csv), two runs compared by the server, a queued run's
 * comparison refused in words (no_scored_clips), an
 * invited second user who sees none of the first user's runs (and the used link refused in words), no
 * 404 for any file a page loads, a session that ends while a page is
 * open (sent to sign-in, told why, and brought back), and an axe-core check of every page
 * (no serious or critical violation; axe is injected with CSP bypassed), at 1280 px and on a phone
 * (390×844: no sideways scrolling, navigation behind Menu). Screenshots of every page at both widths
 * go to test-output/.
 * Under CI=true a missing Chromium fails this test; locally it is skipped with a loud reason.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from '../../server/test/helpers/core-app.js';
import { snapshotter } from './browser.js';
import type { CoreTestServer } from '../../server/test/helpers/core-app.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(here, '../test-output');
const snap = snapshotter(OUT);
const XSS = '<img src=x onerror="window.__xss=1">';
/** The real CLI, spawned as a user runs it (`vesta runner start --demo`). */
const CLI = path.resolve(here, '../../cli/dist/bin.js');

if (!haveChromium && !inCi)
  console.warn(
    `\n*** SKIPPING the dashboard browser test: ${chromiumPath} is not installed (apt-get install -y chromium). Under CI=true it fails instead. ***\n`,
  );

let server: CoreTestServer;
let browser: Browser;
let runner: ChildProcess | undefined;

/**
 * A player shows its stored clip: the browser fetched it from the API (with a byte range, as
 * players do), read its metadata (a duration) and decoded a first frame to show.
 */
async function expectPlays(page: Page, player: Locator): Promise<void> {
  const src = (await player.getAttribute('src'))!;
  expect(src).toContain('/api/v1/videos/');
  const duration = await player.evaluate(
    (v: HTMLVideoElement) =>
      new Promise<number>((resolve, reject) => {
        if (v.readyState >= 2) return resolve(v.duration);
        v.addEventListener('loadeddata', () => resolve(v.duration), { once: true });
        v.addEventListener('error', () => reject(new Error(`media error ${v.error?.code}`)), { once: true });
        v.load();
      }),
  );
  expect(duration).toBeGreaterThan(0);
  const status = await page.evaluate(
    async (url) => (await fetch(url, { headers: { Range: 'bytes=0-99' } })).status,
    src,
  );
  expect(status).toBe(206);
}

describe.skipIf(!haveChromium && !inCi)('the dashboard in headless Chromium', () => {
  beforeAll(async () => {
    // Only this run's screenshots: none left over from pages that have since been renamed.
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    server = await startCoreServer({ listen: true, worker: true });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
  }, 120_000);
  afterAll(async () => {
    runner?.kill('SIGKILL');
    await browser?.close();
    await server?.stop();
  });

  it('first run → sign in → key works → revoke → 401; Score with chart and player; Rank in /ranked order; Bench runs with the demo runner to completed, CSV, compare; invited user sees nothing of the admin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    // Every file a page asks for exists (the favicon included): no 404 outside the API.
    const missing: string[] = [];
    const watch404 = (p: Page) =>
      p.on('response', (r) => {
        if (r.status() === 404 && !new URL(r.url()).pathname.startsWith('/api/')) missing.push(r.url());
      });
    watch404(page);
    const base = server.base;

    // First run: / leads to the setup page.
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Set up Vesta' }).waitFor();
    expect(page.url()).toBe(`${base}/dashboard/setup`);
    await snap(page, '01-setup');
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel(/Password/).fill('a long admin password');
    await page.getByRole('button', { name: 'Create admin account' }).click();
    await page.getByRole('heading', { name: 'Bench runs' }).waitFor();
    // The command names this server's address (a random port here, not the CLI's default :8080).
    await page
      .getByText(
        `VESTA_BASE_URL=${new URL(base).origin} VESTA_API_KEY=<your key> npx vesta runner start --demo`,
      )
      .waitFor();
    await snap(page, '02-bench-empty');

    // Sign out and in again (a sign-out is not "your session has ended").
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByText('Your session has ended').count()).toBe(0);
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
    await snap(page, '03-sign-in-error');
    await page.getByLabel('Password').fill('a long admin password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Bench runs' }).waitFor();

    // An API key made in the page works with X-API-Key, then 401 once revoked.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('e2e laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    expect(key).toMatch(/^vsk_/);
    await page.getByRole('cell', { name: 'e2e laptop' }).waitFor();
    await snap(page, '04-api-keys');
    const withKey = await fetch(`${base}/api/v1/score`, { headers: { 'X-API-Key': key } });
    expect(withKey.status).toBe(200);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('cell', { name: 'e2e laptop' }).waitFor({ state: 'detached' });
    const revoked = await fetch(`${base}/api/v1/score`, { headers: { 'X-API-Key': key } });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { code: string }).code).toBe('unauthorized');

    // Score: a corpus clip whose file name and prompt try to inject HTML; scored with a chart.
    const dir = path.join(os.tmpdir(), `vesta-dash-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const evilName = path.join(dir, `${XSS.replace(/[/"]/g, '_')}.mp4`);
    copyFileSync(clip('zeroscope-v2__toad-karate.mp4'), evilName);
    await page.getByRole('link', { name: 'Score' }).click();
    await page.getByText('No clips in this session yet').waitFor();
    await snap(page, '05-score-empty');
    await page.getByLabel('Prompt the clip was made from').fill(XSS);
    await page.getByTestId('file-input').setInputFiles(evilName);
    const card = page.getByTestId('video-card').first();
    await card.locator('.state-scored').waitFor({ timeout: 120_000 });
    await card.locator('canvas').waitFor();
    expect(await card.getByText(`Prompt: ${XSS}`).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await card.locator('img').count()).toBe(0);
    // The player streams the stored clip from the server (not a local copy of the file).
    const scorePlayer = card.getByTestId('player');
    expect(await scorePlayer.getAttribute('src')).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/videos\/[^/]+\/content$/,
    );
    await expectPlays(page, scorePlayer);
    await snap(page, '06-score');

    // A file that is not a video: the API's error in words, nothing half-made.
    const notVideo = path.join(dir, 'notes.mp4');
    writeFileSync(notVideo, 'this is not a video');
    await page.getByTestId('file-input').setInputFiles(notVideo);
    const refused = page.getByRole('alert').filter({ hasText: '(invalid_video)' }).first();
    await refused.waitFor({ timeout: 60_000 });
    // Which file, what is wrong with it in words, and the catalogue code.
    expect(await refused.textContent()).toMatch(/^Could not upload notes\.mp4: \w+.*\(invalid_video\)$/);
    expect(await page.getByTestId('video-card').count()).toBe(1);
    await snap(page, '07-score-invalid');

    // Rank: two candidates for one prompt; the leaderboard shows them in /ranked's order, each
    // with a player streaming its stored clip.
    await page.getByRole('link', { name: 'Rank' }).click();
    await page.getByLabel('Prompt (locked by the first upload)').fill('a toad practising karate');
    for (const name of ['modelscope-t2v__toad-karate.mp4', 'show-1__toad-karate.mp4']) {
      await page.getByTestId('file-input').setInputFiles(clip(name));
      await page.getByTestId('leaderboard').getByRole('cell', { name, exact: true }).waitFor();
    }
    await page.getByTestId('locked-prompt').filter({ hasText: 'a toad practising karate' }).waitFor();
    const board = page.getByTestId('leaderboard').locator('tbody tr');
    await waitFor(
      async () => board.evaluateAll((rows) => rows.map((r) => r.children[0]!.textContent)),
      (ranks) => ranks.length === 2 && ranks.every((r) => /^\d+$/.test(r ?? '')),
      120_000,
    );
    const ranked = await page.evaluate(async () => {
      const session = (await (await fetch('/api/v1/rank')).json()) as { runId: string };
      return (await (await fetch(`/api/v1/rank/${session.runId}/ranked`)).json()) as {
        entries: Array<{ videoId: string; rank: number }>;
      };
    });
    expect(await board.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-video-id')))).toEqual(
      ranked.entries.map((e) => e.videoId),
    );
    expect(ranked.entries.map((e) => e.rank)).toEqual([1, 2]);
    const rankPlayers = page.locator('.players video');
    expect(await rankPlayers.count()).toBe(2);
    await expectPlays(page, rankPlayers.first());
    await snap(page, '08-rank');

    // Bench with a real runner: `vesta runner start --demo`, spawned with a key made in the page.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('demo runner');
    await page.getByRole('button', { name: 'Create key' }).click();
    const runnerKey = (await page.getByTestId('new-key').textContent())!.trim();
    runner = spawn(
      process.execPath,
      [CLI, 'runner', 'start', '--demo', '--json', '--claim-wait', '1', '--name', 'e2e-demo-runner'],
      {
        env: { PATH: process.env.PATH, VESTA_API_KEY: runnerKey, VESTA_BASE_URL: base },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let runnerOut = '';
    runner.stdout!.on('data', (c: Buffer) => (runnerOut += c.toString()));
    runner.stderr!.on('data', (c: Buffer) => (runnerOut += c.toString()));
    await waitFor(
      () => Promise.resolve(runnerOut),
      (o) => o.includes('"registered"'),
      60_000,
    );

    const runIds: string[] = [];
    for (const [name, dimensions] of [
      ['first run', ['subject_consistency']],
      ['second run', ['subject_consistency', 'dynamic_degree']],
    ] as const) {
      await page.getByRole('link', { name: 'Bench' }).click();
      await page.getByRole('link', { name: 'New run' }).click();
      await page.getByRole('group', { name: 'Quality dimensions' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.locator('select[name="model"]').selectOption('vesta-demo');
      for (const d of dimensions) await page.locator(`input[name="dimension"][value="${d}"]`).check();
      await page.getByLabel('Samples per prompt').fill('1');
      await page.getByLabel('Prompts per dimension (optional)').fill('1');
      if (runIds.length === 0) await snap(page, '09-bench-new');
      await page.getByRole('button', { name: 'Create run' }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      runIds.push(page.url().split('/').at(-1)!);
      // Live: the page follows the run to `completed` without a reload.
      await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 180_000 });
      await page.getByRole('img', { name: `Per-dimension means of ${name}` }).waitFor();
    }
    // The run page: chart, clip grid with players, and the CSV downloaded byte for byte.
    const secondId = runIds[1]!;
    expect(await page.locator('.clip-grid video').count()).toBeGreaterThan(0);
    await expectPlays(page, page.locator('.clip-grid video').first());
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const downloaded = readFileSync(await download.path());
    const served = Buffer.from(
      await (
        await fetch(`${base}/api/v1/bench/${secondId}/csv`, { headers: { 'X-API-Key': runnerKey } })
      ).arrayBuffer(),
    );
    expect(served.toString('utf8')).toMatch(/^dimension,category,score/);
    expect(downloaded.equals(served)).toBe(true);
    await snap(page, '10-bench-run');

    // The list, then the comparison of both runs: a table and a chart.
    await page.getByRole('link', { name: 'Bench' }).click();
    await page.getByRole('link', { name: 'second run' }).waitFor();
    await snap(page, '11-bench-list');
    await page.getByLabel('Compare first run').check();
    await page.getByLabel('Compare second run').check();
    await page.getByRole('button', { name: /Compare selected/ }).click();
    await page.getByTestId('compare-table').waitFor();
    const compared = page.getByTestId('compare-table').locator('tbody tr');
    expect(await compared.count()).toBe(2);
    expect(await compared.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('first run'), expect.stringContaining('second run')]),
    );
    // The server's comparison: the shared dimension with its delta (one prompt: no interval).
    await page.getByTestId('forest-dimensions').locator('[data-row="subject_consistency"]').waitFor();
    await snap(page, '12-bench-compare');

    // With the runner stopped, a new run stays queued: its comparison says "no scores yet".
    runner.kill('SIGTERM');
    await new Promise((r) => runner!.once('close', r));
    await page.getByRole('link', { name: 'Bench' }).click();
    await page.getByRole('link', { name: 'New run' }).click();
    await page.getByLabel('Name', { exact: true }).fill('waiting run');
    await page.locator('select[name="model"]').selectOption('vesta-demo');
    await page.locator('input[name="dimension"][value="subject_consistency"]').check();
    await page.getByLabel('Prompts per dimension (optional)').fill('1');
    await page.getByRole('button', { name: 'Create run' }).click();
    await page.getByRole('heading', { name: 'waiting run', level: 1 }).waitFor();
    await page.getByText('No scores yet.').waitFor();
    await page.getByText('Waiting for a runner serving').waitFor();
    await snap(page, '13-bench-run-queued');
    const waitingId = page.url().split('/').at(-1)!;
    await page.goto(`${base}/dashboard/bench/compare?ids=${waitingId},${runIds[0]!}`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'has no scored clip yet' })
      .filter({ hasText: 'no_scored_clips' })
      .waitFor();
    await page.goto(`${base}/dashboard/bench/compare?ids=${waitingId}`);
    await page.getByRole('alert').filter({ hasText: 'Pick at least two runs' }).waitFor();
    expect(await page.locator('canvas').count()).toBe(0);
    await snap(page, '14-bench-compare-unscored');

    for (const [link, heading, file] of [
      ['Runners', 'Runners', '15-runners'],
      ['Dimensions', 'Dimensions', '16-dimensions'],
      ['Account', 'Account', '17-account'],
      ['Users', 'Users', '18-users'],
    ] as const) {
      await page.getByRole('navigation').getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      await snap(page, file);
    }

    // Invite a second user, who signs up in another browser and sees none of the admin's runs.
    await page.getByLabel('Email').fill('second@example.com');
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = (await page.getByTestId('invite-link').textContent())!.trim();
    expect(link).toMatch(new RegExp(`^${base}/dashboard/invite#token=`));
    await page.getByRole('cell', { name: 'second@example.com' }).waitFor();
    await snap(page, '19-users-invite');
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const second = await other.newPage();
    watch404(second);
    await second.goto(link);
    await second.getByRole('heading', { name: 'Accept your invite' }).waitFor();
    await snap(second, '20-invite');
    await second.getByLabel(/Password/).fill('second user password');
    await second.getByRole('button', { name: 'Create account' }).click();
    await second.getByRole('heading', { name: 'Bench runs' }).waitFor();
    await second.getByText('No runs yet').waitFor();
    expect(await second.getByTestId('runs-table').locator('tbody tr').count()).toBe(0);
    expect(await second.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await other.close();

    // The same invite link a second time: refused in words, no second account.
    const again = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const reuse = await again.newPage();
    watch404(reuse);
    await reuse.goto(link);
    await reuse.getByLabel(/Password/).fill('another password here');
    await reuse.getByRole('button', { name: 'Create account' }).click();
    await reuse
      .getByRole('alert')
      .filter({ hasText: 'This invite link has already been used. (conflict)' })
      .waitFor();
    await snap(reuse, '21-invite-used');
    await again.close();

    // The admin's session ends (past its end) while a page is open: the next read sends the
    // browser to sign-in, which says why and, once signed in, returns to the page. The Users page
    // reads its lists again every 4 s while an invite is open, and that read could meet the ended
    // session before the click below does (CI saw it once); so the session ends on a page that
    // does not poll, and the click on Runners is the next read.
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await server.deps.db
      .updateTable('web_sessions')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    await page.getByRole('navigation').getByRole('link', { name: 'Runners' }).click();
    await page.getByRole('status').filter({ hasText: 'Your session has ended' }).waitFor();
    expect(page.url()).toBe(`${base}/dashboard/sign-in`);
    await snap(page, '22-session-ended');
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill('a long admin password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Runners', level: 1 }).waitFor();
    expect(page.url()).toBe(`${base}/dashboard/runners`);
    expect(missing).toEqual([]);
    await context.close();
    await waitFor(
      async () => (await server.deps.db.selectFrom('users').select('email').execute()).length,
      (n) => n === 2,
    );
  }, 600_000);
});
