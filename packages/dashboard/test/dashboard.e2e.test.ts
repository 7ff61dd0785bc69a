/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
 * server on a fresh data directory: first-run setup, sign-in, an API key made in the page that
 * then works with X-API-Key and answers 401 once revoked, a corpus clip scored on the Score page
 * with its chart (the file name and prompt carry an XSS attempt that must show as text), an
 * upload of a non-video whose API error is shown in words, Bench runs listed and compared, an
 * invited second user who sees none of the first user's runs, and an axe-core check of every page
 * (no serious or critical violation; axe is injected with CSP bypassed). A screenshot of every page goes to test-output/.
 * Under CI=true a missing Chromium fails this test; locally it is skipped with a loud reason.
 */
import { existsSync, mkdirSync, readFileSync, copyFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from '../../server/test/helpers/core-app.js';
import type { CoreTestServer } from '../../server/test/helpers/core-app.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(here, '../test-output');
const AXE = readFileSync(path.resolve(here, '../../../node_modules/axe-core/axe.min.js'), 'utf8');
const XSS = '<img src=x onerror="window.__xss=1">';

if (!haveChromium && !inCi)
  console.warn(
    `\n*** SKIPPING the dashboard browser test: ${chromiumPath} is not installed (apt-get install -y chromium). Under CI=true it fails instead. ***\n`,
  );

let server: CoreTestServer;
let browser: Browser;

/** axe-core on the page as it is now: no serious or critical violation. */
async function expectAccessible(page: Page, name: string): Promise<void> {
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

async function snap(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
  await expectAccessible(page, name);
}

describe.skipIf(!haveChromium && !inCi)('the dashboard in headless Chromium', () => {
  beforeAll(async () => {
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

  it('first run → sign in → key works → revoke → 401; Score with chart; Bench pages; invited user sees nothing of the admin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
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
    await snap(page, '02-bench-empty');

    // Sign out and in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'wrong email or password' }).waitFor();
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
    await page.getByLabel('Prompt the clip was made from').fill(XSS);
    await page.getByTestId('file-input').setInputFiles(evilName);
    const card = page.getByTestId('video-card').first();
    await card.locator('.state-scored').waitFor({ timeout: 120_000 });
    await card.locator('canvas').waitFor();
    expect(await card.getByText(`Prompt: ${XSS}`).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await card.locator('img').count()).toBe(0);
    await snap(page, '05-score');

    // A file that is not a video: the API's error in words, nothing half-made.
    const notVideo = path.join(dir, 'notes.mp4');
    writeFileSync(notVideo, 'this is not a video');
    await page.getByTestId('file-input').setInputFiles(notVideo);
    const refused = page.getByRole('alert').filter({ hasText: '(invalid_video)' }).first();
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.textContent()).toMatch(/\w+.*\(invalid_video\)/);
    await snap(page, '06-score-invalid');

    // Bench: two runs (the demo model, queued without a runner), the list, a run page, the comparison.
    const me = await page.evaluate(
      async () => (await fetch('/api/v1/auth/session')).json() as Promise<{ csrfToken: string }>,
    );
    for (const name of ['first run', 'second run']) {
      const res = await page.evaluate(
        async ({ name, csrf }) =>
          (
            await fetch('/api/v1/bench', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
              body: JSON.stringify({
                name,
                model_id: 'vesta-demo',
                dimensions: ['subject_consistency'],
                samples_per_prompt: 1,
                prompts_per_dimension: 1,
              }),
            })
          ).status,
        { name, csrf: me.csrfToken },
      );
      expect(res).toBe(201);
    }
    await page.getByRole('link', { name: 'Bench' }).click();
    await page.getByRole('link', { name: 'second run' }).waitFor();
    await snap(page, '07-bench-list');
    await page.getByRole('link', { name: 'New run' }).click();
    await page.getByRole('group', { name: 'Quality dimensions' }).waitFor();
    await snap(page, '08-bench-new');
    await page.goBack();
    await page.getByLabel('Compare first run').check();
    await page.getByLabel('Compare second run').check();
    await page.getByRole('button', { name: /Compare selected/ }).click();
    await page.getByTestId('compare-table').waitFor();
    expect(await page.getByTestId('compare-table').locator('tbody tr').count()).toBe(2);
    await snap(page, '09-bench-compare');
    await page.getByRole('link', { name: 'first run' }).click();
    await page.getByTestId('run-status').waitFor();
    await snap(page, '10-bench-run');

    for (const [link, heading, file] of [
      ['Runners', 'Runners', '11-runners'],
      ['Dimensions', 'Dimensions', '12-dimensions'],
      ['Account', 'Account', '13-account'],
      ['Rank', 'Rank', '14-rank'],
      ['Users', 'Users', '15-users'],
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
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const second = await other.newPage();
    await second.goto(link);
    await second.getByRole('heading', { name: 'Accept your invite' }).waitFor();
    await snap(second, '16-invite');
    await second.getByLabel(/Password/).fill('second user password');
    await second.getByRole('button', { name: 'Create account' }).click();
    await second.getByRole('heading', { name: 'Bench runs' }).waitFor();
    await second.getByText('No runs yet').waitFor();
    expect(await second.getByTestId('runs-table').locator('tbody tr').count()).toBe(0);
    expect(await second.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await other.close();
    await context.close();
    await waitFor(
      async () => (await server.deps.db.selectFrom('users').select('email').execute()).length,
      (n) => n === 2,
    );
  }, 300_000);
});
