/**
 * A judging campaign end to end in a real browser (Debian's Chromium through playwright-core)
 * against a real server: two Bench runs of the demo model served by a spawned
 * `vesta runner start --demo`, a campaign made from them in the dashboard, a second judge invited
 * by email who accepts the invite link in another browser, both judging blind from the keyboard
 * (no run, model, file or video id anywhere in the judge's page), the next pair starting within
 * 300 ms of a vote (the page times it), reveal (the judge then sees the names) and the export in CSV and JSONL (downloaded
 * byte for byte as the API serves them). Screenshots at desktop and at 390 × 844 go to
 * test-output/judging-*.png. Under CI=true a missing Chromium fails this test; locally it is
 * skipped with a loud reason.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoreServer, waitFor } from '../../server/test/helpers/core-app.js';
import type { CoreTestServer } from '../../server/test/helpers/core-app.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(here, '../test-output');
const AXE = readFileSync(path.resolve(here, '../../../node_modules/axe-core/axe.min.js'), 'utf8');
const CLI = path.resolve(here, '../../cli/dist/bin.js');
/**
 * Prompts per clip group of each run, in two clip groups: each prompt is one pair (run A's clip
 * against run B's), so two judges cast 50 or more votes from the keyboard.
 */
const PROMPTS_PER_GROUP = 13;

if (!haveChromium && !inCi)
  console.warn(
    `\n*** SKIPPING the judging browser test: ${chromiumPath} is not installed. Under CI=true it fails instead. ***\n`,
  );

let server: CoreTestServer;
let browser: Browser;
let runner: ChildProcess | undefined;

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

/** A full-page screenshot at desktop width, then at 390 × 844 (a phone), then back. */
async function snap(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()!;
  await page.screenshot({ path: path.join(OUT, `judging-${name}.png`), fullPage: true });
  await expectAccessible(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(OUT, `judging-${name}-390.png`), fullPage: true });
  await page.setViewportSize(size);
}

async function newPage(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  return page;
}

/**
 * Votes from the keyboard until the page says nothing is left: `keys` in turn. Returns how long
 * after each vote the next pair was playing (as the page timed it).
 */
async function judgeAll(page: Page, keys: string[]): Promise<{ votes: number; startMs: number[] }> {
  const startMs: number[] = [];
  let votes = 0;
  for (;;) {
    const stage = page.getByTestId('judge-stage');
    const done = page.getByTestId('judging-done');
    await stage.or(done).first().waitFor({ timeout: 30_000 });
    if (await done.isVisible()) return { votes, startMs };
    // Both clips of the pair are playing before the vote (the page's timer is set when they are).
    const left = page.getByTestId('player-left');
    const clipBefore = await left.getAttribute('data-clip-id');
    await waitFor(
      () => page.getByTestId('start-ms').getAttribute('data-ms'),
      (ms) => ms !== null && ms !== '',
      30_000,
    );
    if (votes > 0) startMs.push(Number(await page.getByTestId('start-ms').getAttribute('data-ms')));
    await page.keyboard.press(keys[votes % keys.length]!);
    votes++;
    await waitFor(
      async () =>
        (await done.isVisible()) ||
        ((await left.count()) > 0 && (await left.getAttribute('data-clip-id')) !== clipBefore),
      (moved) => moved,
      30_000,
    );
  }
}

describe.skipIf(!haveChromium && !inCi)('a judging campaign in headless Chromium', () => {
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    server = await startCoreServer({ listen: true, worker: true });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
  }, 120_000);
  afterAll(async () => {
    runner?.kill('SIGKILL');
    await browser?.close();
    await server?.stop();
  });

  it('two demo runs → campaign → invited judge → blind keyboard judging by two judges → reveal → export', async () => {
    const base = server.base;
    const ownerContext = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      bypassCSP: true,
    });
    const owner = await newPage(ownerContext);

    // The owner: first-run setup, then an API key for the demo runner.
    await owner.goto(`${base}/`);
    await owner.getByRole('heading', { name: 'Set up Vesta' }).waitFor();
    await owner.getByLabel('Email').fill('owner@example.com');
    await owner.getByLabel(/Password/).fill('a long owner password');
    await owner.getByRole('button', { name: 'Create admin account' }).click();
    await owner.getByRole('heading', { name: 'Bench runs' }).waitFor();
    await owner.getByRole('link', { name: 'API keys' }).click();
    await owner.getByLabel('Name').fill('demo runner');
    await owner.getByRole('button', { name: 'Create key' }).click();
    const key = (await owner.getByTestId('new-key').textContent())!.trim();
    runner = spawn(
      process.execPath,
      [CLI, 'runner', 'start', '--demo', '--json', '--claim-wait', '1', '--name', 'judging-demo-runner'],
      {
        env: { PATH: process.env.PATH, VESTA_API_KEY: key, VESTA_BASE_URL: base },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      expect(res.status, `${method} ${url}`).toBeLessThan(300);
      return (await res.json()) as T;
    };
    const runNames = ['demo model, night build', 'demo model, day build'];
    const runIds: string[] = [];
    for (const name of runNames) {
      const run = await api<{ id: string }>('POST', '/api/v1/bench', {
        name,
        model_id: 'vesta-demo',
        dimensions: ['subject_consistency', 'temporal_flickering'],
        samples_per_prompt: 1,
        prompts_per_dimension: PROMPTS_PER_GROUP,
      });
      runIds.push(run.id);
    }
    for (const id of runIds)
      await waitFor(
        () => api<{ status: string }>('GET', `/api/v1/bench/${id}`),
        (r) => r.status === 'completed',
        300_000,
      );
    runner.kill('SIGTERM');

    // The campaign, made in the dashboard from both runs.
    await owner.getByRole('navigation').getByRole('link', { name: 'Judging' }).click();
    await owner.getByText('No campaigns yet').waitFor();
    await snap(owner, '01-empty');
    await owner.getByRole('link', { name: 'New campaign' }).click();
    await owner.getByLabel('Name').fill('night against day');
    for (const name of runNames) await owner.getByLabel(`Judge ${name}`).check();
    await owner.getByLabel(/^Votes per pair \(optional/).fill('2');
    await snap(owner, '02-new');
    await owner.getByRole('button', { name: 'Create campaign' }).click();
    await owner.getByRole('heading', { name: 'night against day', level: 1 }).waitFor();
    const campaignId = owner.url().split('/').at(-1)!;
    const pairs = (
      await api<{ progress: { pairs: number } }>('GET', `/api/v1/judging/campaigns/${campaignId}`)
    ).progress.pairs;
    expect(pairs).toBeGreaterThanOrEqual(25);

    // Judges: a new user invited by email (the owner is an admin: a single-use link), and the owner.
    await owner.getByLabel('Add a judge (email or user name)').fill('judge@example.com');
    await owner.getByRole('button', { name: 'Add judge' }).click();
    const link = (await owner.getByTestId('judge-invite-link').textContent())!.trim();
    expect(link).toMatch(new RegExp(`^${base}/dashboard/invite#token=`));
    // One judge cannot give a pair its 2 votes (each answers a pair once): the page says so.
    await owner
      .getByTestId('too-few-judges')
      .filter({ hasText: 'with 1 judge no pair can get its 2 votes' })
      .waitFor();
    await owner.getByRole('button', { name: 'Judge it myself too' }).click();
    await owner.getByTestId('too-few-judges').waitFor({ state: 'detached' });
    await owner.getByTestId('judges-table').getByRole('cell', { name: 'owner@example.com' }).waitFor();
    await snap(owner, '03-campaign-owner');

    // The judge accepts the invite in another browser and finds the campaign, blinded.
    const judgeContext = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      bypassCSP: true,
    });
    const judge = await newPage(judgeContext);
    await judge.goto(link);
    await judge.getByRole('heading', { name: 'Accept your invite' }).waitFor();
    await judge.getByLabel(/Password/).fill('a long judge password');
    await judge.getByRole('button', { name: 'Create account' }).click();
    // Invited to judge, they land on the campaign itself (not on an empty Bench page).
    await judge.getByRole('heading', { name: 'night against day', level: 1 }).waitFor();
    await judge.getByRole('link', { name: 'Start judging' }).waitFor();
    // None of the owner's runs is theirs to see.
    await judge.getByRole('navigation').getByRole('link', { name: 'Bench' }).click();
    await judge.getByRole('heading', { name: 'Bench runs' }).waitFor();
    expect(await judge.getByTestId('runs-table').locator('tbody tr').count()).toBe(0);
    await judge.getByRole('navigation').getByRole('link', { name: 'Judging' }).click();
    await judge.getByRole('link', { name: 'night against day' }).click();
    await judge.getByRole('link', { name: 'Start judging' }).waitFor();
    const blind = async (page: Page) => {
      const html = await page.content();
      for (const secret of [...runNames, ...runIds, 'vesta-demo', '/api/v1/videos/'])
        expect(html, `the judge's page names ${secret}`).not.toContain(secret);
    };
    await blind(judge);
    await snap(judge, '04-campaign-judge');

    // The judge votes from the keyboard: left, right, tie, in turn, until nothing is left.
    await judge.getByRole('link', { name: 'Start judging' }).click();
    await judge.getByTestId('judge-stage').waitFor();
    await blind(judge);
    // One set of controls for both players: Space pauses both, the slider moves both, Space plays both.
    const pair = judge.locator('[data-testid="player-left"], [data-testid="player-right"]');
    const states = () =>
      pair.evaluateAll((vs) =>
        (vs as HTMLVideoElement[]).map((v) => ({ paused: v.paused, t: v.currentTime })),
      );
    await waitFor(states, (s) => s.length === 2 && s.every((v) => !v.paused), 30_000);
    await judge.keyboard.press(' ');
    await waitFor(states, (s) => s.every((v) => v.paused));
    await judge.getByLabel('Position in both clips').evaluate((el) => {
      // As a drag sets it: the value, then an input event (what React's onChange listens to).
      // eslint-disable-next-line @typescript-eslint/unbound-method -- the native setter, applied to the element
      const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      set.call(el, '1.5');
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const moved = await waitFor(states, (s) => s.every((v) => Math.abs(v.t - 1.5) < 0.05));
    expect(moved.every((v) => v.paused)).toBe(true);
    await snap(judge, '05-judging');
    await judge.keyboard.press(' ');
    await waitFor(states, (s) => s.every((v) => !v.paused));
    const judged = await judgeAll(judge, ['ArrowLeft', 'ArrowLeft', 'ArrowRight', 'ArrowDown']);
    expect(judged.votes).toBe(pairs);
    await snap(judge, '06-judging-done');

    // The owner judges too (keys 1 and 2, and B for both bad), preferring the same side less consistently.
    await owner.getByRole('link', { name: 'Start judging' }).click();
    const ownerJudged = await judgeAll(owner, ['1', '1', '2', 'b']);
    expect(ownerJudged.votes).toBe(pairs);
    const starts = [...judged.startMs, ...ownerJudged.startMs].sort((a, b) => a - b);
    console.log(`next pair playing after a vote (ms): ${starts.map((m) => m.toFixed(0)).join(', ')}`);
    expect(starts.at(-1)!).toBeLessThan(300);

    await owner.goto(`${base}/dashboard/judging/${campaignId}`);
    await owner
      .getByTestId('campaign-progress')
      .filter({ hasText: `${2 * pairs} votes` })
      .waitFor();

    // The results, as the owner sees them after the votes: every figure rendered is the API's.
    type Ratings = {
      votes: number;
      items: Array<{
        item: string;
        label: string;
        rating: number | null;
        ci95Low: number | null;
        ci95High: number | null;
        votes: number;
        wins: number;
        losses: number;
        ties: number;
      }>;
      winMatrix: Array<{ item: string; opponent: string; wins: number; losses: number; ties: number }>;
      judges: Array<{ judge: string; votes: number; agreement: number | null; belowChance: boolean }>;
    };
    type Agreement = {
      dimensions: Array<{
        dimension: string;
        pairs: number;
        agreement: number | null;
        ci95Low: number | null;
        ci95High: number | null;
        kendallTau: number | null;
      }>;
      fitted: { heldOutAccuracy: number; bestSingleAccuracy: number; bestSingleDimension: string } | null;
    };
    const ratings = await api<Ratings>('GET', `/api/v1/judging/campaigns/${campaignId}/ratings`);
    const agreement = await api<Agreement>('GET', `/api/v1/judging/campaigns/${campaignId}/agreement`);
    const signed = (x: number) => (x >= 0 ? `+${x.toFixed(2)}` : `−${Math.abs(x).toFixed(2)}`);
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    const fixed2 = (x: number) => {
      const s = Math.abs(x).toFixed(2);
      return x < 0 && s !== '0.00' ? `−${s}` : s;
    };
    expect(ratings.votes).toBe(2 * pairs);
    expect(ratings.items.map((i) => i.label).sort()).toEqual(runNames.map((n) => `vesta-demo · ${n}`).sort());
    // Every pair is one run's clip against the other's: the two rows mirror each other.
    const [first, second] = ratings.items;
    expect(first!.wins).toBe(second!.losses);
    expect(first!.ties).toBe(second!.ties);
    expect(first!.votes).toBe(first!.wins + first!.losses + first!.ties);
    // Two items: the one ranked first won at least as often as it lost.
    expect(first!.rating!).toBeGreaterThanOrEqual(second!.rating!);
    expect(first!.wins).toBeGreaterThanOrEqual(first!.losses);
    // Both bad does not enter the ratings: the text says from how many of the votes they come.
    const rated = ratings.items.reduce((n, i) => n + i.wins + i.ties / 2, 0);
    expect(rated).toBeLessThan(2 * pairs);
    await owner
      .getByTestId('judging-ratings')
      .filter({ hasText: `Bradley–Terry with ties from ${rated} of ${2 * pairs} votes (both bad and skip` })
      .waitFor();
    const ratingRows = owner.getByTestId('ratings-table').locator('tbody tr');
    await ratingRows.first().waitFor();
    expect(await ratingRows.count()).toBe(2);
    for (const [n, item] of ratings.items.entries()) {
      const cells = (await ratingRows.nth(n).locator('td').allInnerTexts()).map((t) => t.trim());
      expect(cells[1]).toBe(item.label);
      expect(cells[2]).toBe(signed(item.rating!));
      expect(cells[3]).toBe(`${signed(item.ci95Low!)} to ${signed(item.ci95High!)}`);
      expect(cells.slice(5)).toEqual([item.votes, item.wins, item.losses, item.ties].map(String));
    }
    const m = ratings.winMatrix.find((w) => w.item === first!.item && w.opponent === second!.item)!;
    expect(m.wins).toBe(first!.wins);
    await owner
      .getByTestId('win-matrix')
      .getByRole('cell', { name: `${first!.label} against ${second!.label}: ${m.wins} wins` })
      .waitFor();
    expect(ratings.judges).toHaveLength(2);
    // One heading per section: the agreement table's is not a second "Judges" beside the judges card's.
    expect(await owner.getByRole('heading', { name: 'Judges', exact: true }).count()).toBe(1);
    await owner.getByRole('heading', { name: 'Judge agreement', exact: true }).waitFor();
    const judgeRows = owner.getByTestId('judge-agreement-table').locator('tbody tr');
    expect(await judgeRows.count()).toBe(2);
    for (const [n, j] of ratings.judges.entries()) {
      const text = await judgeRows.nth(n).innerText();
      expect(text).toContain(j.judge);
      expect(text).toContain(j.agreement === null ? '—' : pct(j.agreement));
      expect(text.includes('below chance')).toBe(j.belowChance);
    }
    expect(agreement.dimensions.map((d) => d.dimension).sort()).toEqual([
      'subject_consistency',
      'temporal_flickering',
    ]);
    const dimensionRows = owner.getByTestId('dimension-agreement-table').locator('tbody tr');
    expect(await dimensionRows.count()).toBe(2);
    for (const [n, d] of agreement.dimensions.entries()) {
      const text = await dimensionRows.nth(n).innerText();
      expect(text).toContain(d.dimension);
      expect(text).toContain(d.agreement === null ? '—' : pct(d.agreement));
      expect(text).toContain(d.kendallTau === null ? '—' : fixed2(d.kendallTau));
      // A negative τ carries a minus sign, never a hyphen.
      expect(text).not.toMatch(/-\d/);
    }
    const fittedText = await owner.getByTestId('fitted-score').innerText();
    if (agreement.fitted) {
      expect(fittedText).toContain('fitted to this campaign');
      expect(fittedText).toContain(pct(agreement.fitted.heldOutAccuracy));
      expect(fittedText).toContain(pct(agreement.fitted.bestSingleAccuracy));
    } else expect(fittedText).toContain('—');
    console.log(
      `ratings: ${ratings.items.map((i) => `${i.label} ${i.rating} [${i.ci95Low}, ${i.ci95High}] ${i.wins}-${i.losses}-${i.ties}`).join('; ')}; judges ${JSON.stringify(ratings.judges)}; dimensions ${JSON.stringify(agreement.dimensions)}; fitted ${JSON.stringify(agreement.fitted)}`,
    );
    await snap(owner, '07-results-owner');
    // On a phone the win matrix scrolls inside its card: the page itself never scrolls sideways.
    const desktop = owner.viewportSize()!;
    await owner.setViewportSize({ width: 390, height: 844 });
    await owner.waitForTimeout(150);
    const widths = await owner.evaluate(() => {
      const wrap = document.querySelector('[data-testid="win-matrix"]')!.parentElement!;
      return {
        page: document.documentElement.scrollWidth,
        view: window.innerWidth,
        wrapRight: wrap.getBoundingClientRect().right,
        overflow: getComputedStyle(wrap).overflowX,
        firstCellRight: wrap.querySelector('tbody tr td')!.getBoundingClientRect().right,
      };
    });
    expect(widths.page, JSON.stringify(widths)).toBeLessThanOrEqual(widths.view);
    expect(widths.wrapRight).toBeLessThanOrEqual(widths.view);
    expect(widths.overflow).toBe('auto');
    // The first column of figures is in view beside the row names (they wrap, not push it out).
    expect(widths.firstCellRight, JSON.stringify(widths)).toBeLessThanOrEqual(widths.view);
    await owner.setViewportSize(desktop);

    // Reveal: the judge now sees the names.
    await owner.getByRole('button', { name: 'Reveal names to judges' }).click();
    await owner.getByText(/names revealed/).waitFor();
    await judge.goto(`${base}/dashboard/judging/${campaignId}`);
    await judge.getByText(runNames[0]!).first().waitFor();
    // …and the ratings (as GET …/ratings answers a judge once revealed), without the owner's
    // per-judge and dimension agreement.
    const judgeRatings = judge.getByTestId('ratings-table').locator('tbody tr');
    await judgeRatings.first().waitFor();
    expect(await judgeRatings.count()).toBe(2);
    expect(await judge.getByTestId('judge-agreement-table').count()).toBe(0);
    expect(await judge.getByTestId('judging-agreement').count()).toBe(0);
    await snap(judge, '08-revealed-judge');

    // Export: CSV and JSONL downloaded byte for byte as the API serves them.
    for (const format of ['csv', 'jsonl'] as const) {
      const [download] = await Promise.all([
        owner.waitForEvent('download'),
        owner.getByRole('button', { name: `Export votes (${format.toUpperCase()})` }).click(),
      ]);
      const downloaded = readFileSync(await download.path());
      const served = Buffer.from(
        await (
          await fetch(`${base}/api/v1/judging/campaigns/${campaignId}/export?format=${format}`, {
            headers: { 'X-API-Key': key },
          })
        ).arrayBuffer(),
      );
      expect(downloaded.equals(served)).toBe(true);
      const lines = served.toString('utf8').trim().split('\n');
      expect(lines.length).toBe(format === 'csv' ? 1 + 2 * pairs : 2 * pairs);
    }

    // Close: no more judging.
    await owner.getByRole('button', { name: 'Close campaign' }).click();
    await owner
      .getByText(/closed/)
      .first()
      .waitFor();
    await snap(owner, '09-closed');
    await ownerContext.close();
    await judgeContext.close();
  }, 600_000);
});
