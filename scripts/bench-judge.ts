/**
 * `npm run bench:judge`: what judging (issue #23) costs on the server.
 *
 * A real Vesta server (all role, the embedded defaults: SQLite in a temporary data directory),
 * listening on 127.0.0.1; every measured request goes over HTTP (`fetch`, keep-alive). The clips
 * are seeded straight into its database (as bench:compare does): four completed Bench runs of one
 * prompt suite, 100 prompts × 5 samples each, 2,000 clips. Seeding goes around the upload path on
 * purpose: this benchmark measures serving pairs and ratings, not uploading. Campaigns and judges
 * are made through the API (`POST /judging/campaigns`, `POST …/judges`): 3,000 pairs (6 run pairs
 * × 500 prompt-samples), 3 votes per pair.
 *
 * 1. First one judge alone, 50 votes in a row (the requests' service time without contention).
 *    Then 100 judges at once, each in a loop: `GET …/next-pairs?count=2` (the judging page answers the
 *    first offer and preloads the second), then `POST …/votes` on the first offer, answered from
 *    known run strengths. Two phases: no pause between a vote and the next ask (every judge always
 *    has a request in flight: the worst case), then a think time drawn uniformly from
 *    0–2 × BENCH_JUDGE_THINK_MS (default 1,000 ms), judges arriving spread over one such
 *    pause, closer to people watching two clips.
 *    BENCH_JUDGE_ROUNDS votes per judge and phase (default 15). p50 / p95 / max of next-pairs and
 *    of votes, client-side wall. Target: next pair ≤ 30 ms p95.
 * 2. `GET …/ratings` (Bradley–Terry with ties, 1,000-replicate prompt bootstrap, win matrix,
 *    per-judge agreement) on a second campaign of the same 2,000 clips with 20,000 votes of 100
 *    judges written straight into its tables (drawn from known strengths, as the vote route would
 *    store them). The first call (it computes the ratings: wall and CPU reported alone), then
 *    BENCH_JUDGE_RATINGS calls (default 5) with nothing changed (the server may answer them from
 *    its kept answer): p50 wall and the process's CPU per call (`process.cpuUsage`; the client is idle while it waits, so this is the
 *    server's CPU). Target: ≤ 1 s.
 *
 * The client runs in the server's process (one event loop): in phase 1 its fetch and JSON work
 * competes with the server's, so the latencies are, if anything, pessimistic. Prints the load
 * average before and after (the machine is shared) and a Markdown table for docs/benchmarks.md.
 * Needs a build (`npm run build`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine } from '@vesta/engine';
import { loadConfig, startServer } from '@vesta/server';
import type {
  JudgingOfferRecord,
  JudgingVoteRecord,
} from '../packages/server/src/repositories/judging.repository.js';
import { grid, seedRun } from '../packages/server/test/helpers/bench-seed.js';

const JUDGES = 100;
const ROUNDS = Number(process.env.BENCH_JUDGE_ROUNDS ?? 15);
const THINK_MS = Number(process.env.BENCH_JUDGE_THINK_MS ?? 1000);
const RATINGS_CALLS = Number(process.env.BENCH_JUDGE_RATINGS ?? 5);
const RATED_VOTES = 20_000;
const RUNS = 4;
const PROMPTS = 100;
const SAMPLES = 5;
/** True strengths (log scale) of the four runs, and the Davidson tie parameter. */
const STRENGTH = [0, 0.3, 0.6, 0.9];
const NU = 0.3;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of the API
type Json = Record<string, any>;

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A Davidson draw between strengths sa and sb: 'a', 'b' or 'tie'. */
function draw(sa: number, sb: number): 'a' | 'b' | 'tie' {
  const pa = Math.exp(sa);
  const pb = Math.exp(sb);
  const pt = NU * Math.sqrt(pa * pb);
  const u = Math.random() * (pa + pb + pt);
  return u < pa ? 'a' : u < pa + pb ? 'b' : 'tie';
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-judge-'));
  const config = loadConfig(
    { VESTA_OFFLINE: '1', VESTA_DATA_DIR: dataDir, VESTA_LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' },
    dataDir,
  );
  const server = await startServer(config, { createEngine, listen: false, worker: false });
  try {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    const api = async (method: string, url: string, key: string, body?: unknown): Promise<Json> => {
      const res = await fetch(base + url, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
      return JSON.parse(text) as Json;
    };

    const owner = await server.deps.services.apiKeys.createKey('bench-judge-owner');
    await server.deps.bench.models.upsert({
      id: 'bench-model',
      name: 'Bench model',
      description: 'benchmark',
    });
    const seedStart = performance.now();
    const runIds: string[] = [];
    for (let r = 0; r < RUNS; r++) {
      const id = `bench_judge_run_${r}`;
      runIds.push(id);
      await seedRun(server, {
        id,
        userId: owner.userId,
        model: 'bench-model',
        clips: grid('overall_consistency', PROMPTS, SAMPLES, (p, s) => ({
          overall_consistency: 0.5 + 0.02 * r + 0.05 * Math.sin(p + s),
        })),
      });
    }
    const strengthOf = new Map(runIds.map((id, r) => [id, STRENGTH[r]!]));
    const judges: { key: string; userId: string }[] = [];
    for (let j = 0; j < JUDGES; j++)
      judges.push(await server.deps.services.apiKeys.createKey(`bench-judge-${j}`));
    const campaign = async (name: string): Promise<string> => {
      const c = await api('POST', '/api/v1/judging/campaigns', owner.key, { name, benchRunIds: runIds });
      const id = c.id as string;
      for (let j = 0; j < JUDGES; j++)
        await api('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, {
          userName: `bench-judge-${j}`,
        });
      return id;
    };
    const served = await campaign('bench-judge serving');
    const rated = await campaign('bench-judge ratings');
    const servedView = await api('GET', `/api/v1/judging/campaigns/${served}`, owner.key);
    console.log(
      `seeded ${RUNS} runs × ${PROMPTS * SAMPLES} clips, 2 campaigns, ${JUDGES} judges in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; campaign: ${JSON.stringify(servedView.progress ?? servedView)}`,
    );

    // The item (run) of each campaign clip, to answer votes from the true strengths.
    const clipItem = new Map<string, string>();
    for (const c of await server.deps.db.selectFrom('judging_clips').select(['id', 'item']).execute())
      clipItem.set(c.id, c.item);

    // 1. 100 judges voting at once.
    const phase = async (
      who: { key: string }[],
      rounds: number,
      think: number,
    ): Promise<{ next: number[]; vote: number[]; wall: number }> => {
      const next: number[] = [];
      const vote: number[] = [];
      const t0 = performance.now();
      await Promise.all(
        who.map(async (j) => {
          // With a think time, judges arrive spread over one think time, as people do.
          if (think > 0) await sleep(Math.random() * 2 * think);
          for (let i = 0; i < rounds; i++) {
            let t = performance.now();
            const np = await api('GET', `/api/v1/judging/campaigns/${served}/next-pairs?count=2`, j.key);
            next.push(performance.now() - t);
            const offer = (np.offers as Json[])[0];
            if (!offer) break;
            if (think > 0) await sleep(Math.random() * 2 * think);
            const left = strengthOf.get(clipItem.get(offer.left.clipId as string)!)!;
            const right = strengthOf.get(clipItem.get(offer.right.clipId as string)!)!;
            const d = draw(left, right);
            t = performance.now();
            await api('POST', `/api/v1/judging/campaigns/${served}/votes`, j.key, {
              offerId: offer.offerId,
              answer: d === 'a' ? 'left' : d === 'b' ? 'right' : 'tie',
            });
            vote.push(performance.now() - t);
          }
        }),
      );
      return { next, vote, wall: (performance.now() - t0) / 1000 };
    };
    console.log(`load average before: ${load()}`);
    const solo = await phase(judges.slice(0, 1), 50, 0);
    console.log(`load average after phase 1 (one judge alone): ${load()}`);
    const saturated = await phase(judges, ROUNDS, 0);
    console.log(`load average after phase 1a: ${load()}`);
    const thinking = await phase(judges, ROUNDS, THINK_MS);
    console.log(`load average after phase 1b: ${load()}`);

    // 2. Ratings of 20,000 votes, written straight into the second campaign's tables.
    const db = server.deps.db;
    const pairs = await db
      .selectFrom('judging_pairs')
      .select(['id', 'clip_a', 'clip_b', 'item_a', 'item_b'])
      .where('campaign_id', '=', rated)
      .orderBy('id')
      .execute();
    const judgeRows = await db
      .selectFrom('judging_judges')
      .select('id')
      .where('campaign_id', '=', rated)
      .orderBy('pseudonym')
      .execute();
    const perPair = Math.ceil(RATED_VOTES / pairs.length);
    if (perPair > 7)
      throw new Error(`${pairs.length} pairs: too few for ${RATED_VOTES} distinct (pair, judge) votes`);
    const offers: JudgingOfferRecord[] = [];
    const votes: JudgingVoteRecord[] = [];
    const nVotes = new Map<string, number>();
    const now = Date.now();
    for (let k = 0; k < RATED_VOTES; k++) {
      const p = pairs[k % pairs.length]!;
      // 13·r mod 100 is distinct for r < 8: one vote per judge and pair.
      const judge = judgeRows[(13 * Math.floor(k / pairs.length) + (k % pairs.length)) % JUDGES]!;
      const outcome = draw(strengthOf.get(p.item_a)!, strengthOf.get(p.item_b)!);
      const offerId = randomUUID();
      const at = now - RATED_VOTES + k;
      offers.push({
        id: offerId,
        campaign_id: rated,
        pair_id: p.id,
        judge_id: judge.id,
        left_clip: p.clip_a,
        right_clip: p.clip_b,
        offered_at: at,
        answered_at: at,
        void_at: null,
      });
      votes.push({
        id: randomUUID(),
        campaign_id: rated,
        pair_id: p.id,
        judge_id: judge.id,
        offer_id: offerId,
        answer: outcome === 'a' ? 'left' : outcome === 'b' ? 'right' : 'tie',
        outcome,
        left_clip: p.clip_a,
        right_clip: p.clip_b,
        created_at: at,
      });
      nVotes.set(p.id, (nVotes.get(p.id) ?? 0) + 1);
    }
    await db.transaction().execute(async (tx) => {
      for (let i = 0; i < offers.length; i += 500) {
        await tx
          .insertInto('judging_offers')
          .values(offers.slice(i, i + 500))
          .execute();
        await tx
          .insertInto('judging_votes')
          .values(votes.slice(i, i + 500))
          .execute();
      }
      for (const [id, n] of nVotes)
        await tx.updateTable('judging_pairs').set({ n_votes: n }).where('id', '=', id).execute();
      await tx
        .updateTable('judging_campaigns')
        .set({ n_votes: RATED_VOTES })
        .where('id', '=', rated)
        .execute();
    });
    const ratingsUrl = `/api/v1/judging/campaigns/${rated}/ratings`;
    // The first call computes the ratings; the server may keep the answer for the repeats (nothing
    // changed in between), so the first call's wall and CPU are reported on their own.
    const firstCpu = process.cpuUsage();
    const firstT = performance.now();
    const first = await api('GET', ratingsUrl, owner.key);
    const firstWall = performance.now() - firstT;
    const firstUse = process.cpuUsage(firstCpu);
    if (first.votes !== RATED_VOTES) throw new Error(`ratings read ${first.votes} votes, not ${RATED_VOTES}`);
    const ratingWall: number[] = [];
    const ratingCpu: number[] = [];
    let body = first;
    for (let i = 0; i < RATINGS_CALLS; i++) {
      const c = process.cpuUsage();
      const t = performance.now();
      body = await api('GET', ratingsUrl, owner.key);
      ratingWall.push(performance.now() - t);
      const u = process.cpuUsage(c);
      ratingCpu.push((u.user + u.system) / 1000);
    }
    console.log(`load average after: ${load()}`);
    const order = (body.items as Json[])
      .map(
        (i) =>
          `${i.item as string} ${(i.rating as number).toFixed(2)} [${(i.ci95Low as number).toFixed(2)}, ${(i.ci95High as number).toFixed(2)}]`,
      )
      .join('; ');
    console.log(`ratings (true strengths ${STRENGTH.join(', ')}, centred): ${order}`);

    const ms = (x: number): string => `${x.toFixed(1)} ms`;
    const row = (name: string, xs: number[]): string =>
      `| ${name} | ${xs.length} | ${ms(percentile(xs, 0.5))} | ${ms(percentile(xs, 0.95))} | ${ms(Math.max(...xs))} |`;
    console.log('');
    console.log('| measure | n | p50 | p95 | max |');
    console.log('| --- | --- | --- | --- | --- |');
    console.log(row('next-pairs, one judge alone (service time)', solo.next));
    console.log(row('votes, one judge alone', solo.vote));
    console.log(row('next-pairs, 100 judges, no pause', saturated.next));
    console.log(row('votes, 100 judges, no pause', saturated.vote));
    console.log(row(`next-pairs, 100 judges, think 0–${2 * THINK_MS} ms`, thinking.next));
    console.log(row(`votes, 100 judges, think 0–${2 * THINK_MS} ms`, thinking.vote));
    console.log(
      `| GET …/ratings, first call, ${RATED_VOTES.toLocaleString('en')} votes, ${RUNS} items, 1,000 resamples (wall / process CPU) | 1 | ${ms(firstWall)} / ${ms((firstUse.user + firstUse.system) / 1000)} | — | — |`,
    );
    console.log(
      `| GET …/ratings, repeat calls, nothing changed (wall) | ${ratingWall.length} | ${ms(percentile(ratingWall, 0.5))} | — | ${ms(Math.max(...ratingWall))} |`,
    );
    console.log(
      `| the same, process CPU per call | ${ratingCpu.length} | ${ms(percentile(ratingCpu, 0.5))} | — | ${ms(Math.max(...ratingCpu))} |`,
    );
    console.log(
      `\nphase 1a: ${saturated.vote.length} votes in ${saturated.wall.toFixed(1)} s; phase 1b: ${thinking.vote.length} votes in ${thinking.wall.toFixed(1)} s`,
    );
    console.log(
      `next pair p95: ${ms(percentile(saturated.next, 0.95))} no pause, ${ms(percentile(thinking.next, 0.95))} with think time (target ≤ 30 ms)`,
    );
    console.log(
      `ratings of ${RATED_VOTES} votes: first call ${ms(firstWall)} wall, repeats p50 ${ms(percentile(ratingWall, 0.5))} wall (target ≤ 1 s)`,
    );
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
