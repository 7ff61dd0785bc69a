/**
 * Comparison of Bench runs, the regression gate's API and model baselines on a real server (SQLite
 * and PostgreSQL): bad input, each with its catalogue error; the same runs giving the same
 * intervals and p-values on every call and on both databases (the answer equals the pure
 * comparison of the same clips, which a hand-checked test holds to known numbers); a run still
 * going labelled; non-comparable dimensions explained; Holm stated; baselines set and cleared.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compareRuns } from '../src/domain/bench-comparison.js';
import { scoredClips } from '../src/services/bench-views.js';
import { startTestServer } from './helpers/bench-app.js';
import type { TestServer } from './helpers/bench-app.js';
import { grid, seedRun } from './helpers/bench-seed.js';

let server: TestServer;
let alice: { key: string; userId: string };
let bob: { key: string; userId: string };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies read in assertions
type Json = Record<string, any>;

async function call(method: 'GET' | 'PUT' | 'DELETE', url: string, key: string, body?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, json: (): Json => res.json() };
}

const compare = (query: string, key = alice.key) => call('GET', `/api/v1/bench/compare?${query}`, key);

/** A deterministic wobble per prompt and sample, so runs differ by prompt the way real ones do. */
const wobble = (p: number, s: number, k: number): number => Math.sin(7 * p + 3 * s + k) / 50;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.key();
  bob = await server.key();
  await server.deps.bench.models.upsert({ id: 'model-a', name: 'Model A', description: 'under test' });
  await server.deps.bench.models.upsert({ id: 'model-b', name: 'Model B', description: 'under test' });
  const scores = (shift: number) => (p: number, s: number) => ({
    aesthetic_quality: 0.55 + shift + 0.05 * Math.cos(p) + wobble(p, s, 1),
    imaging_quality: 0.6 + 0.04 * Math.sin(p) + wobble(p, s, 2),
  });
  await seedRun(server, {
    id: 'bench_cmp_base',
    userId: alice.userId,
    model: 'model-a',
    clips: grid('overall_consistency', 8, 3, scores(0)),
  });
  await seedRun(server, {
    id: 'bench_cmp_worse',
    userId: alice.userId,
    model: 'model-a',
    clips: grid('overall_consistency', 8, 3, scores(-0.04)),
  });
  await seedRun(server, {
    id: 'bench_cmp_same',
    userId: alice.userId,
    model: 'model-a',
    clips: grid('overall_consistency', 8, 3, scores(0.001)),
  });
  await seedRun(server, {
    id: 'bench_cmp_other_suite',
    userId: alice.userId,
    model: 'model-a',
    suite: 'suite-older',
    clips: grid('overall_consistency', 8, 3, scores(0.01)),
  });
  await seedRun(server, {
    id: 'bench_cmp_v4',
    userId: alice.userId,
    model: 'model-a',
    clips: grid('overall_consistency', 8, 3, scores(0), { version: '4' }),
  });
  await seedRun(server, {
    id: 'bench_cmp_running',
    userId: alice.userId,
    model: 'model-a',
    status: 'generating',
    clips: grid('overall_consistency', 8, 1, scores(0)),
    pending: 16,
  });
  await seedRun(server, {
    id: 'bench_cmp_empty',
    userId: alice.userId,
    model: 'model-a',
    status: 'generating',
    clips: [],
    pending: 4,
  });
  await seedRun(server, {
    id: 'bench_cmp_bobs',
    userId: bob.userId,
    model: 'model-a',
    clips: grid('overall_consistency', 8, 3, scores(0)),
  });
  await seedRun(server, {
    id: 'bench_cmp_model_b',
    userId: alice.userId,
    model: 'model-b',
    clips: grid('overall_consistency', 4, 2, scores(0)),
  });
});

afterAll(async () => {
  await server.stop();
});

describe('GET /api/v1/bench/{id} of an ended run', () => {
  it("serves the stored scorecard spliced into the run's JSON: the same document, byte-stable, on every call", async () => {
    const read = async () => {
      const res = await server.app.inject({
        method: 'GET',
        url: '/api/v1/bench/bench_cmp_worse',
        headers: { 'x-api-key': alice.key },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      return res.body;
    };
    const first = await read();
    const run = JSON.parse(first) as Json;
    // Valid JSON of exactly the run's fields, the scorecard last and equal to /scorecard's.
    expect(JSON.stringify(run)).toBe(first);
    expect(Object.keys(run).at(-1)).toBe('scorecard');
    expect(run.status).toBe('completed');
    const card = (await call('GET', '/api/v1/bench/bench_cmp_worse/scorecard', alice.key)).json();
    expect(card.final).toBe(true);
    expect(run.scorecard).toEqual(card);
    expect(run.scorecard.dimensions.map((d: Json) => d.dimension)).toEqual([
      'aesthetic_quality',
      'imaging_quality',
    ]);
    // Read again (the kept JSON): the same bytes.
    expect(await read()).toBe(first);
    // A run still going has no scorecard and takes the ordinary path.
    const live = (await call('GET', '/api/v1/bench/bench_cmp_running', alice.key)).json();
    expect(live.scorecard).toBeNull();
  });

  it('reads the row without its scorecard once the parsed one is kept; a row whose stamps moved is read whole', async () => {
    const url = '/api/v1/bench/bench_cmp_worse';
    const get = async () => {
      const res = await server.app.inject({ method: 'GET', url, headers: { 'x-api-key': alice.key } });
      expect(res.statusCode).toBe(200);
      return res.body;
    };
    const first = await get(); // keeps the parsed scorecard (if no earlier read did)
    const runs = server.deps.repos.benchRuns;
    const whole = vi.spyOn(runs, 'byId');
    try {
      expect(await get()).toBe(first);
      expect(whole).not.toHaveBeenCalled();
      // Another user still gets 403, a missing id 404, from the lighter read.
      expect((await call('GET', url, bob.key)).status).toBe(403);
      expect((await call('GET', '/api/v1/bench/bench_nope', alice.key)).status).toBe(404);

      // The row changes (here by hand: a scorecard with another value, and its updated_at moved):
      // the stamps no longer match the kept entry, so the whole row is read and shown.
      const row = await server.deps.db
        .selectFrom('bench_runs')
        .select(['scorecard', 'updated_at'])
        .where('id', '=', 'bench_cmp_worse')
        .executeTakeFirstOrThrow();
      const stored = JSON.parse(row.scorecard!) as Json;
      stored.card.dimensions[0].score = 0.123;
      await server.deps.db
        .updateTable('bench_runs')
        .set({ scorecard: JSON.stringify(stored), updated_at: row.updated_at + 1 })
        .where('id', '=', 'bench_cmp_worse')
        .execute();
      try {
        const changed = JSON.parse(await get()) as Json;
        expect(whole).toHaveBeenCalledTimes(1);
        expect(changed.scorecard.dimensions[0].score).toBe(0.123);
      } finally {
        await server.deps.db
          .updateTable('bench_runs')
          .set({ scorecard: row.scorecard, updated_at: row.updated_at })
          .where('id', '=', 'bench_cmp_worse')
          .execute();
      }
      expect(await get()).toBe(first);
    } finally {
      whole.mockRestore();
    }
  });
});

describe('GET /api/v1/bench (the runs list)', () => {
  it('shows each run as GET /bench/{id} does; a stored scorecard already parsed is not read again', async () => {
    const list = async () => {
      const res = await call('GET', '/api/v1/bench?limit=100', alice.key);
      expect(res.status).toBe(200);
      return res.json().items as Json[];
    };
    const runs = server.deps.repos.benchRuns;
    const whole = vi.spyOn(runs, 'byIdsOwnedBy');
    try {
      // The list shows scorecards already stored (it computes none): GET each run first, which stores them.
      const runIds = (await list()).map((r) => r.id as string);
      expect(runIds.length).toBeGreaterThan(2);
      const got = new Map<string, Json>();
      for (const id of runIds) got.set(id, (await call('GET', `/api/v1/bench/${id}`, alice.key)).json());
      const items = await list();
      for (const item of items) expect(item).toEqual(got.get(item.id as string));
      expect(items.find((r) => r.id === 'bench_cmp_worse')!.scorecard).not.toBeNull();
      expect(items.find((r) => r.id === 'bench_cmp_running')!.scorecard).toBeNull();

      // Every stored scorecard on the page is kept now: the next page reads no row whole.
      whole.mockClear();
      expect(await list()).toEqual(items);
      expect(whole.mock.calls.flatMap(([ids]) => [...ids])).toEqual([]);
      // The whole-row read is owner-scoped by construction: another user's ids read nothing.
      expect(await runs.byIdsOwnedBy(runIds, alice.userId)).toHaveLength(runIds.length);
      expect(await runs.byIdsOwnedBy(runIds, 'someone-else')).toEqual([]);

      // A row whose stamps moved (its scorecard changed by hand) is read whole and shown as stored.
      const row = await server.deps.db
        .selectFrom('bench_runs')
        .select(['scorecard', 'updated_at'])
        .where('id', '=', 'bench_cmp_worse')
        .executeTakeFirstOrThrow();
      const stored = JSON.parse(row.scorecard!) as Json;
      stored.card.dimensions[0].score = 0.321;
      await server.deps.db
        .updateTable('bench_runs')
        .set({ scorecard: JSON.stringify(stored), updated_at: row.updated_at + 1 })
        .where('id', '=', 'bench_cmp_worse')
        .execute();
      try {
        whole.mockClear();
        const changed = (await list()).find((r) => r.id === 'bench_cmp_worse')!;
        expect(whole.mock.calls.flatMap(([ids]) => [...ids])).toEqual(['bench_cmp_worse']);
        expect(changed.scorecard.dimensions[0].score).toBe(0.321);
      } finally {
        await server.deps.db
          .updateTable('bench_runs')
          .set({ scorecard: row.scorecard, updated_at: row.updated_at })
          .where('id', '=', 'bench_cmp_worse')
          .execute();
      }
      expect(await list()).toEqual(items);
    } finally {
      whole.mockRestore();
    }
  });
});

describe('GET /api/v1/bench/compare', () => {
  it('compares paired runs: deltas, intervals and p-values equal to the pure comparison, the same on every call', async () => {
    const first = await compare('runs=bench_cmp_base,bench_cmp_worse');
    expect(first.status).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({
      baseline_id: 'bench_cmp_base',
      comparable: true,
      level: 0.95,
      resamples: 10000,
    });
    expect(body.dimensions).toEqual(['aesthetic_quality', 'imaging_quality']);
    const c = body.comparisons[0];
    expect(c.mode).toBe('paired');
    const aesthetic = c.rows.find((r: Json) => r.name === 'aesthetic_quality');
    expect(aesthetic.delta).toBeCloseTo(-0.04, 10);
    expect(aesthetic.pairs).toBe(24);
    expect(aesthetic.ci95_high).toBeLessThan(0);
    expect(aesthetic.significant).toBe(true);
    // Quality over the two compared dimensions, recomputed from the same resample.
    expect(c.rows.map((r: Json) => r.name)).toEqual([
      'aesthetic_quality',
      'imaging_quality',
      'Quality',
      'Total',
    ]);
    expect(c.rows.find((r: Json) => r.name === 'Quality').partial).toBe(true);
    // Deterministic: the same answer again, and exactly the pure comparison of the stored clips
    // (so SQLite and PostgreSQL, whatever order they return rows in, answer the same).
    server.deps.bench.comparisons.clearCache();
    expect((await compare('runs=bench_cmp_base,bench_cmp_worse')).json()).toEqual(body);
    const clips = async (id: string) => scoredClips(await server.deps.repos.benchTasks.scoredClipsOf(id));
    const pure = compareRuns([
      { id: 'bench_cmp_base', suiteVersion: 'suite-test', clips: await clips('bench_cmp_base') },
      { id: 'bench_cmp_worse', suiteVersion: 'suite-test', clips: await clips('bench_cmp_worse') },
    ]);
    const row = pure.comparisons[0]!.rows[0]!;
    expect([aesthetic.ci95_low, aesthetic.ci95_high, aesthetic.p_value]).toEqual([
      row.ci95Low,
      row.ci95High,
      row.pValue,
    ]);
    // Per prompt, largest drop first, with both runs' clips of the prompt.
    expect(c.prompts).toHaveLength(8);
    expect(c.prompts[0].delta).toBeLessThanOrEqual(c.prompts[7].delta);
    expect(c.prompts[0].baseline_clips).toHaveLength(3);
    expect(c.prompts[0].candidate_clips[0].video_id).toMatch(/^bench_cmp_worse-v/);
  });

  it('compares runs of different suite versions unpaired, and says so', async () => {
    const c = (await compare('runs=bench_cmp_base,bench_cmp_other_suite')).json().comparisons[0];
    expect(c.mode).toBe('unpaired');
    expect(c.mode_reason).toContain('suite-older');
    expect(c.rows[0].pairs).toBeNull();
  });

  it('with more than two runs, compares each with the first and adjusts by Holm', async () => {
    const body = (await compare('runs=bench_cmp_base,bench_cmp_worse,bench_cmp_same')).json();
    expect(body.correction.method).toBe('holm');
    expect(body.correction.statement).toContain('Holm');
    expect(body.comparisons.map((c: Json) => c.candidate_id)).toEqual(['bench_cmp_worse', 'bench_cmp_same']);
    for (const c of body.comparisons)
      for (const r of c.rows) expect(r.p_adjusted).toBeGreaterThanOrEqual(r.p_value);
  });

  it('lists a dimension scored by another method version as not comparable, with why', async () => {
    const body = (await compare('runs=bench_cmp_base,bench_cmp_v4&fail_on_regression=0')).json();
    expect(body.comparable).toBe(false);
    expect(body.not_comparable[0]).toEqual({
      dimension: 'aesthetic_quality',
      reason: 'scored by different methods: lite v1 in bench_cmp_base, lite v4 in bench_cmp_v4',
    });
    expect(body.gate.verdict).toBe('not_comparable');
  });

  it('keeps the comparison of ended runs; a run still going is compared afresh on every call', async () => {
    const comparisons = server.deps.bench.comparisons;
    const aestheticDelta = async (query: string) =>
      (await compare(query)).json().comparisons[0].rows.find((r: Json) => r.name === 'aesthetic_quality')
        .delta as number;
    const moveScore = (videoId: string, by: number) =>
      server.deps.db
        .updateTable('scores')
        .set((eb) => ({ value: eb('value', '+', by) }))
        .where('video_id', '=', videoId)
        .where('dimension', '=', 'aesthetic_quality')
        .execute();
    // Both ended: the second call is the kept answer (a score changed behind the API's back, which
    // no API call can do to an ended run, does not show until the kept answers are forgotten).
    comparisons.clearCache();
    const ended = 'runs=bench_cmp_base,bench_cmp_same';
    const before = await aestheticDelta(ended);
    await moveScore('bench_cmp_same-v0', 0.24);
    try {
      expect(await aestheticDelta(ended)).toBe(before);
      comparisons.clearCache();
      expect(await aestheticDelta(ended)).toBeCloseTo(before + 0.01, 10);
    } finally {
      await moveScore('bench_cmp_same-v0', -0.24);
      comparisons.clearCache();
    }
    // A run still going: each call reads its clips as they are now.
    const live = 'runs=bench_cmp_base,bench_cmp_running';
    const liveBefore = await aestheticDelta(live);
    await moveScore('bench_cmp_running-v0', 0.08);
    try {
      expect(await aestheticDelta(live)).toBeCloseTo(liveBefore + 0.01, 10);
    } finally {
      await moveScore('bench_cmp_running-v0', -0.08);
    }
  });

  it('allows a run still going and labels it with its scored clips', async () => {
    const body = (await compare('runs=bench_cmp_base,bench_cmp_running')).json();
    expect(body.runs[1].label).toBe('generating: 8 of 24 clips scored');
  });

  it('prompt_limit keeps the largest drops only; rows, intervals and gate unchanged', async () => {
    const q = 'runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0.01';
    const full = (await compare(q)).json();
    expect(full.comparisons[0].prompts.length).toBeGreaterThan(2);
    const two = (await compare(`${q}&prompt_limit=2`)).json();
    expect(two.comparisons[0].prompts).toEqual(full.comparisons[0].prompts.slice(0, 2));
    const none = (await compare(`${q}&prompt_limit=0`)).json();
    expect(none.comparisons[0].prompts).toEqual([]);
    for (const cut of [two, none]) {
      expect(cut.comparisons[0].rows).toEqual(full.comparisons[0].rows);
      expect(cut.gate).toEqual(full.gate);
    }
    for (const bad of ['-1', '1.5', 'all', '100001']) {
      const res = await compare(`${q}&prompt_limit=${bad}`);
      expect(res.status, `prompt_limit=${bad}`).toBe(400);
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().detail).toContain('prompt_limit');
    }
  });

  it('gates: a regression beyond DELTA, none within it, on the named rows', async () => {
    const gated = (await compare('runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0.01')).json().gate;
    expect(gated.verdict).toBe('regression');
    expect(gated.regressions).toEqual(['aesthetic_quality']);
    expect(gated.alpha).toBe(0.025);
    const wide = (await compare('runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0.1')).json().gate;
    expect(wide.verdict).toBe('pass');
    const one = (
      await compare('runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0.01&dimensions=imaging_quality')
    ).json();
    expect(one.dimensions).toEqual(['imaging_quality']);
    expect(one.gate.verdict).toBe('pass');
  });

  it('gates only the aggregates named: dimensions=Total gates the Total alone', async () => {
    const total = (
      await compare('runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0&dimensions=Total')
    ).json();
    // Total is compared over every shared dimension, but only its row is gated.
    expect(total.dimensions).toEqual(['aesthetic_quality', 'imaging_quality']);
    expect(total.gate.rows.map((r: Json) => r.name)).toEqual(['Total']);
    expect(total.gate.statement).toContain('Holm over 1 row(s)');
    // Named with a dimension: both rows, nothing else.
    const two = (
      await compare(
        'runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0&dimensions=imaging_quality,Quality',
      )
    ).json();
    expect(two.gate.rows.map((r: Json) => r.name)).toEqual(['imaging_quality', 'Quality']);
    // An aggregate with none of its group's dimensions compared has no row: no verdict, not a pass.
    const semantic = (
      await compare('runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=0&dimensions=Semantic')
    ).json();
    expect(semantic.gate.verdict).toBe('not_comparable');
    expect(semantic.gate.statement).toContain("Semantic: none of its group's dimensions is compared");
  });

  it.each([
    ['runs=bench_cmp_base', 400, 'validation_failed', 'at least 2 runs'],
    ['runs=bench_cmp_base,bench_cmp_base', 400, 'validation_failed', "lists 'bench_cmp_base' twice"],
    [
      `runs=${Array.from({ length: 11 }, (_, i) => `bench_x${i}`).join(',')}`,
      400,
      'validation_failed',
      'at most 10',
    ],
    ['runs=bench_cmp_base,,bench_cmp_worse', 400, 'validation_failed', "lists '' "],
    ['runs=bench_cmp_base,bench_gone', 404, 'not_found', "bench run 'bench_gone'"],
    ['runs=bench_cmp_base,bench_cmp_bobs', 403, 'forbidden', "'bench_cmp_bobs' belongs to another user"],
    [
      'runs=bench_cmp_base,bench_cmp_empty',
      409,
      'no_scored_clips',
      "'bench_cmp_empty' (generating) has no scored clip",
    ],
    [
      'runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=-0.1',
      400,
      'validation_failed',
      'fail_on_regression',
    ],
    [
      'runs=bench_cmp_base,bench_cmp_worse&fail_on_regression=abc',
      400,
      'validation_failed',
      'fail_on_regression',
    ],
    [
      'runs=bench_cmp_base,bench_cmp_worse,bench_cmp_same&fail_on_regression=0',
      400,
      'validation_failed',
      'exactly 2 runs',
    ],
    [
      'runs=bench_cmp_base,bench_cmp_worse&dimensions=sharpness',
      400,
      'validation_failed',
      "unknown dimension 'sharpness'",
    ],
    ['runs=bench_cmp_base,bench_cmp_worse&extra=1', 400, 'validation_failed', 'extra'],
  ])('refuses %s with %i %s', async (query, status, code, detail) => {
    const res = await compare(query);
    expect(res.status).toBe(status);
    expect(res.json().code).toBe(code);
    expect(res.json().detail).toContain(detail);
  });
});

describe('model baselines', () => {
  const path = (model: string) => `/api/v1/models/${model}/baseline`;

  it('sets, reads and clears a baseline; deleting the run clears it too', async () => {
    expect((await call('GET', path('model-a'), alice.key)).json()).toEqual({
      model_id: 'model-a',
      run_id: null,
      set_at: null,
    });
    const set = await call('PUT', path('model-a'), alice.key, { run_id: 'bench_cmp_base' });
    expect(set.status).toBe(200);
    expect(set.json()).toMatchObject({ model_id: 'model-a', run_id: 'bench_cmp_base' });
    expect((await call('GET', path('model-a'), alice.key)).json().run_id).toBe('bench_cmp_base');
    // Per user: Bob's baseline of the same global model is his own.
    expect((await call('GET', path('model-a'), bob.key)).json().run_id).toBeNull();
    expect((await call('DELETE', path('model-a'), alice.key)).status).toBe(204);
    expect((await call('GET', path('model-a'), alice.key)).json().run_id).toBeNull();

    await call('PUT', path('model-b'), alice.key, { run_id: 'bench_cmp_model_b' });
    expect(
      (
        await server.app.inject({
          method: 'DELETE',
          url: '/api/v1/bench/bench_cmp_model_b',
          headers: { 'x-api-key': alice.key },
        })
      ).statusCode,
    ).toBe(204);
    expect((await call('GET', path('model-b'), alice.key)).json().run_id).toBeNull();
  });

  it.each([
    ['model-a', 'bench_cmp_running', 409, 'conflict', 'only a completed run'],
    ['model-b', 'bench_cmp_base', 400, 'validation_failed', "evaluated model 'model-a', not 'model-b'"],
    ['model-a', 'bench_cmp_bobs', 403, 'forbidden', 'another user'],
    ['model-a', 'bench_nope', 404, 'not_found', "bench run 'bench_nope'"],
    ['no-such-model', 'bench_cmp_base', 404, 'not_found', "model 'no-such-model'"],
  ])('refuses %s ← %s with %i %s', async (model, run, status, code, detail) => {
    const res = await call('PUT', path(model), alice.key, { run_id: run });
    expect(res.status).toBe(status);
    expect(res.json()).toMatchObject({ code });
    expect(res.json().detail).toContain(detail);
  });
});
