/**
 * The Bench endpoints on a real server (SQLite file, real engine registry, app.inject):
 * create, list with pagination, get, cancel, delete, videos, csv, logs; the state machine's 409s;
 * idempotency on create and cancel; 401/403/404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPT_SUITE_VERSION, planPrompts } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';
import type { BenchProgressService } from '../src/services/bench-progress.service.js';
import { startTestServer } from './helpers/bench-app.js';
import type { TestServer } from './helpers/bench-app.js';

let server: TestServer;
let alice: { key: string; userId: string };
let bob: { key: string; userId: string };
let service: BenchProgressService;
/** Two dimensions this server can evaluate now (a method available), and one it cannot. */
let usable: string[];
let unusable: string | undefined;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.key();
  bob = await server.key();
  const models = server.deps.bench.models;
  await models.upsert({ id: 'model-a', name: 'Model A', description: 'A generator under test.' });
  await models.upsert({ id: 'model-b', name: 'Model B', description: 'Another generator.' });
  service = server.deps.bench.progress;
  const dims = server.deps.engine.dimensions().filter((d) => d.workflows.includes('bench'));
  usable = dims.filter((d) => d.defaultMethod !== null).map((d) => d.id);
  unusable = dims.find((d) => d.defaultMethod === null)?.id;
});

afterAll(async () => {
  await server.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies read in assertions
type Json = Record<string, any>;

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  key: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await server.app.inject({
    method,
    url,
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, headers: res.headers, text: res.body, json: (): Json => res.json() };
}

async function createRun(user: { key: string }, body: Json = {}): Promise<Json> {
  const res = await call('POST', '/api/v1/bench', user.key, {
    name: 'run',
    dimensions: usable.slice(0, 2),
    model_id: 'model-a',
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.json();
}

describe('POST /api/v1/bench', () => {
  it('creates a queued run with progress, in VBench dimension order, runner_id optional', async () => {
    expect(usable.length).toBeGreaterThanOrEqual(2);
    const reversed = [...usable.slice(0, 2)].reverse();
    const run = await createRun(alice, { name: 'nightly', dimensions: reversed });
    // Every prompt of the clip groups covering the dimensions, 5 samples each (VBench's default).
    const planned = planPrompts(usable.slice(0, 2) as DimensionId[]).length;
    expect(planned).toBeGreaterThan(0);
    expect(run).toMatchObject({
      name: 'nightly',
      dimensions: usable.slice(0, 2),
      model_id: 'model-a',
      runner_id: null,
      status: 'queued',
      samples_per_prompt: 5,
      prompts_per_dimension: null,
      suite_version: PROMPT_SUITE_VERSION,
      progress: {
        tasks_total: planned * 5,
        tasks_generated: 0,
        tasks_done: 0,
        tasks_failed: 0,
        clips_total: planned * 5,
        clips_evaluated: 0,
      },
      error: null,
      started_at: null,
      finished_at: null,
    });
    expect(run.id).toMatch(/^bench_/);
    expect(Date.parse(run.created_at)).toBeGreaterThan(0);
    const got = await call('GET', `/api/v1/bench/${run.id}`, alice.key);
    expect(got.json()).toEqual(run);
  });

  it('refuses unknown dimensions, models and runners with validation_failed naming the value', async () => {
    const bad = async (body: Json, code: string, detail: RegExp) => {
      const res = await call('POST', '/api/v1/bench', alice.key, {
        name: 'x',
        dimensions: usable.slice(0, 1),
        model_id: 'model-a',
        ...body,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.json().code).toBe(code);
      expect(res.json().detail).toMatch(detail);
      expect(res.json().requestId).toBeTruthy();
    };
    await bad({ dimensions: ['sharpness'] }, 'validation_failed', /unknown dimension 'sharpness'/);
    await bad({ model_id: 'no-such-model' }, 'validation_failed', /unknown model_id 'no-such-model'/);
    await bad({ runner_id: 'runner-x' }, 'validation_failed', /unknown runner_id 'runner-x'/);
    await bad({ dimensions: [] }, 'validation_failed', /dimensions/);
    await bad({ dimensions: [usable[0], usable[0]] }, 'validation_failed', /dimensions/);
    await bad({ name: '' }, 'validation_failed', /name/);
    await bad({ name: 'tab\there' }, 'validation_failed', /name/);
    await bad({ model_id: 7 }, 'validation_failed', /model_id/);
    await bad({ colour: 'red' }, 'invalid_field', /colour/);
    const missing = await call('POST', '/api/v1/bench', alice.key, {
      name: 'x',
      dimensions: usable.slice(0, 1),
    });
    expect(missing.status).toBe(400);
    expect(missing.json().code).toBe('validation_failed');
    // Nothing was half-written: alice's list is unchanged by the refusals.
    const before = (await call('GET', '/api/v1/bench?limit=100', alice.key)).json().total;
    await bad({ dimensions: ['sharpness'] }, 'validation_failed', /sharpness/);
    expect((await call('GET', '/api/v1/bench?limit=100', alice.key)).json().total).toBe(before);
  });

  it('refuses a dimension that has no method available on this server', async () => {
    expect(unusable, 'a model-backed dimension without its model').toBeDefined();
    const res = await call('POST', '/api/v1/bench', alice.key, {
      name: 'x',
      dimensions: [unusable],
      model_id: 'model-a',
    });
    expect(res.status).toBe(400);
    expect(res.json().detail).toMatch(new RegExp(`dimension '${unusable}' has no method available`));
  });

  it('accepts a runner_id that serves the model and refuses one that does not', async () => {
    const now = Date.now();
    await server.deps.db
      .insertInto('runners')
      .values({ id: 'runner-1', user_id: alice.userId, name: 'gpu-1', created_at: now, last_seen_at: now })
      .execute();
    await server.deps.db
      .insertInto('runner_models')
      .values({ runner_id: 'runner-1', model_id: 'model-a' })
      .execute();
    const run = await createRun(alice, { runner_id: 'runner-1' });
    expect(run.runner_id).toBe('runner-1');
    const res = await call('POST', '/api/v1/bench', alice.key, {
      name: 'x',
      dimensions: usable.slice(0, 1),
      model_id: 'model-b',
      runner_id: 'runner-1',
    });
    expect(res.status).toBe(400);
    expect(res.json().detail).toMatch(/runner 'runner-1' does not serve model 'model-b'/);
  });

  it('replays a create sent twice with one Idempotency-Key, and refuses the key with another body', async () => {
    const user = await server.key();
    const body = { name: 'once', dimensions: usable.slice(0, 1), model_id: 'model-a' };
    const [first, second] = await Promise.all([
      call('POST', '/api/v1/bench', user.key, body, { 'idempotency-key': 'create-1' }),
      call('POST', '/api/v1/bench', user.key, body, { 'idempotency-key': 'create-1' }),
    ]);
    const statuses = [first.status, second.status].sort();
    // A duplicate that arrives while the first runs is 409 conflict; otherwise it is a replay.
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    const third = await call('POST', '/api/v1/bench', user.key, body, { 'idempotency-key': 'create-1' });
    expect(third.status).toBe(201);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect((await call('GET', '/api/v1/bench', user.key)).json().total).toBe(1);
    const other = await call(
      'POST',
      '/api/v1/bench',
      user.key,
      { ...body, name: 'other' },
      { 'idempotency-key': 'create-1' },
    );
    expect(other.status).toBe(409);
    expect(other.json().code).toBe('idempotency_mismatch');
  });
});

describe('GET /api/v1/bench (pagination)', () => {
  it('pages newest first with page, limit, total and hasMore', async () => {
    const user = await server.key();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createRun(user, { name: `r${i}` })).id);
    const first = (await call('GET', '/api/v1/bench?limit=2', user.key)).json();
    expect(first).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(first.items.map((r: Json) => r.id)).toEqual([ids[2], ids[1]]);
    const second = (await call('GET', '/api/v1/bench?limit=2&page=2', user.key)).json();
    expect(second).toMatchObject({ page: 2, limit: 2, total: 3, hasMore: false });
    expect(second.items.map((r: Json) => r.id)).toEqual([ids[0]]);
    const past = (await call('GET', '/api/v1/bench?page=50', user.key)).json();
    expect(past).toMatchObject({ page: 50, limit: 20, total: 3, hasMore: false, items: [] });
    // Only the caller's runs.
    const other = (await call('GET', '/api/v1/bench', bob.key)).json();
    expect(other.items.every((r: Json) => !ids.includes(r.id))).toBe(true);
  });

  it.each([
    'page=0',
    'page=-1',
    'page=1000000000',
    'page=abc',
    'page=1.5',
    'limit=0',
    'limit=-1',
    'limit=101',
    'limit=1000000000',
    'limit=ten',
  ])('refuses %s with 400 validation_failed', async (query) => {
    for (const path of ['/api/v1/bench', `/api/v1/bench/${(await createRun(alice)).id}/logs`]) {
      const res = await call('GET', `${path}?${query}`, alice.key);
      if (path.endsWith('/logs') && query === 'limit=101') {
        expect(res.status).toBe(200); // logs allow up to 1000 lines per page
        continue;
      }
      expect(res.status, `${path}?${query}: ${res.text}`).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });
});

describe('ownership and authentication', () => {
  it('answers 401 without a key, 403 for another user, 404 for an unknown id on every run route', async () => {
    const run = await createRun(alice);
    const routes: Array<['GET' | 'POST' | 'DELETE', string]> = [
      ['GET', `/api/v1/bench/${run.id}`],
      ['POST', `/api/v1/bench/${run.id}/cancel`],
      ['DELETE', `/api/v1/bench/${run.id}`],
      ['GET', `/api/v1/bench/${run.id}/videos`],
      ['GET', `/api/v1/bench/${run.id}/csv`],
      ['GET', `/api/v1/bench/${run.id}/logs`],
    ];
    for (const [method, url] of routes) {
      const anonymous = await call(method, url, null);
      expect(anonymous.status, `${method} ${url}`).toBe(401);
      expect(anonymous.json().code).toBe('unauthorized');
      const wrongKey = await call(method, url, 'vsk_' + 'x'.repeat(40));
      expect(wrongKey.status).toBe(401);
      const foreign = await call(method, url, bob.key);
      expect(foreign.status, `${method} ${url}`).toBe(403);
      expect(foreign.json().code).toBe('forbidden');
      const missing = await call(method, url.replace(run.id, 'bench_missing'), alice.key);
      expect(missing.status).toBe(404);
      expect(missing.json().code).toBe('not_found');
    }
    // Bob's attempts changed nothing.
    expect((await call('GET', `/api/v1/bench/${run.id}`, alice.key)).json().status).toBe('queued');
    for (const url of ['/api/v1/bench', '/api/v1/dimensions', '/api/v1/models']) {
      expect((await call('GET', url, null)).status).toBe(401);
    }
  });
});

describe('cancel and delete', () => {
  it('cancels an active run once; a second cancel is 409 conflict; an Idempotency-Key replays', async () => {
    const run = await createRun(alice);
    const cancelled = await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key, undefined, {
      'idempotency-key': 'cancel-1',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json()).toMatchObject({ id: run.id, status: 'cancelled' });
    expect(cancelled.json().finished_at).not.toBeNull();
    const replay = await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key, undefined, {
      'idempotency-key': 'cancel-1',
    });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key);
    expect(again.status).toBe(409);
    expect(again.json().code).toBe('conflict');
    expect(again.json().detail).toMatch(/already cancelled/);
    const withBody = await call('POST', `/api/v1/bench/${(await createRun(alice)).id}/cancel`, alice.key, {
      reason: 'x',
    });
    expect(withBody.status).toBe(400);
    expect(withBody.json().code).toBe('invalid_field');
  });

  it('refuses to delete an active run (409) and deletes a finished one (204, then 404)', async () => {
    const run = await createRun(alice);
    const refused = await call('DELETE', `/api/v1/bench/${run.id}`, alice.key);
    expect(refused.status).toBe(409);
    expect(refused.json().code).toBe('conflict');
    expect(refused.json().detail).toMatch(/cancel it/);
    expect((await call('GET', `/api/v1/bench/${run.id}`, alice.key)).status).toBe(200);
    await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key);
    const deleted = await call('DELETE', `/api/v1/bench/${run.id}`, alice.key);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await call('GET', `/api/v1/bench/${run.id}`, alice.key)).status).toBe(404);
    expect((await call('GET', `/api/v1/bench/${run.id}/logs`, alice.key)).status).toBe(404);
    const logs = await server.deps.db
      .selectFrom('bench_logs')
      .select('seq')
      .where('run_id', '=', run.id)
      .execute();
    expect(logs).toEqual([]);
  });

  it('walks the state machine; illegal moves and stale compare-and-sets are 409', async () => {
    const run = await createRun(alice);
    await expect(service.transition(run.id, 'queued', 'completed')).rejects.toMatchObject({
      code: 'conflict',
    });
    await service.transition(run.id, 'queued', 'generating');
    await expect(service.transition(run.id, 'queued', 'generating')).rejects.toMatchObject({
      code: 'conflict',
      detail: expect.stringMatching(/is generating, not queued/),
    });
    await service.transition(run.id, 'generating', 'evaluating');
    await service.transition(run.id, 'evaluating', 'completed');
    const done = (await call('GET', `/api/v1/bench/${run.id}`, alice.key)).json();
    expect(done.status).toBe('completed');
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    const cancel = await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key);
    expect(cancel.status).toBe(409);
    expect(cancel.json().detail).toMatch(/already completed/);
    const logs = (await call('GET', `/api/v1/bench/${run.id}/logs`, alice.key)).json();
    expect(logs.items.map((l: Json) => l.message)).toEqual([
      expect.stringMatching(/^run created/),
      'queued → generating',
      'generating → evaluating',
      'evaluating → completed',
    ]);
    await service.transition((await createRun(alice)).id, 'queued', 'failed', {
      error: { code: 'no_runner', detail: 'no runner came' },
    });
    const failed = (await call('GET', '/api/v1/bench?limit=1', alice.key)).json().items[0];
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'no_runner', detail: 'no runner came' },
    });
  });
});

describe('racing moves', () => {
  it('lets exactly one of a cancel and a completion win; the other is 409 conflict', async () => {
    for (let i = 0; i < 5; i++) {
      const run = await createRun(alice);
      await service.transition(run.id, 'queued', 'generating');
      await service.transition(run.id, 'generating', 'evaluating');
      const [completion, cancel] = await Promise.allSettled([
        service.transition(run.id, 'evaluating', 'completed'),
        call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key),
      ]);
      const completed = completion.status === 'fulfilled';
      const cancelled = cancel.status === 'fulfilled' && cancel.value.status === 200;
      expect(
        completed !== cancelled,
        `completion ${completion.status}, cancel ${cancel.status === 'fulfilled' ? cancel.value.status : 'threw'}`,
      ).toBe(true);
      if (!completed)
        expect(completion.status === 'rejected' && (completion.reason as { code?: string }).code).toBe(
          'conflict',
        );
      if (!cancelled) expect(cancel.status === 'fulfilled' && cancel.value.json().code).toBe('conflict');
      const final = (await call('GET', `/api/v1/bench/${run.id}`, alice.key)).json();
      expect(final.status).toBe(completed ? 'completed' : 'cancelled');
      const logs = (await call('GET', `/api/v1/bench/${run.id}/logs`, alice.key)).json();
      expect(logs.items.filter((l: Json) => /→ (completed|cancelled)/.test(l.message))).toHaveLength(1);
    }
  });
});

describe('videos, csv and logs', () => {
  it("lists a run's clips with their scores, counts progress, and writes the scorecard from them", async () => {
    const run = await createRun(alice, { dimensions: usable.slice(0, 2) });
    const [d0, d1] = usable as [string, string];
    const now = Date.now();
    const db = server.deps.db;
    // Replace the planned tasks with fixture rows standing for two generated clips (one scored,
    // one still evaluating) and one pending clip: what the runner protocol and the evaluator write.
    await db.deleteFrom('bench_tasks').where('run_id', '=', run.id).execute();
    // The run's clips live in its holder session (id = the run id), created with the run.
    const blobKeys: string[] = [];
    for (const v of ['v1', 'v2']) {
      const blobKey = `test/${run.id}/${v}`;
      const write = await server.deps.blobs.createWrite(blobKey);
      write.stream.end(Buffer.from('clip bytes'));
      await new Promise<void>((resolve) => write.stream.once('finish', () => resolve()));
      await write.commit();
      blobKeys.push(blobKey);
      await db
        .insertInto('videos')
        .values({
          id: `${run.id}-${v}`,
          session_id: run.id,
          user_id: alice.userId,
          file_name: `${v}.mp4`,
          content_type: 'video/mp4',
          prompt: 'a cat',
          auxiliary: null,
          state: v === 'v1' ? 'scored' : 'scoring',
          error_code: null,
          error_detail: null,
          blob_key: blobKey,
          max_bytes: 1000,
          size_bytes: 10,
          upload_expires_at: now,
          upload_started_at: null,
          probe: null,
          dimensions: JSON.stringify([d0, d1]),
          created_at: now,
          uploaded_at: now,
          confirmed_at: now,
          scored_at: null,
        })
        .execute();
    }
    const score = (dimension: string, value: number) => ({
      video_id: `${run.id}-v1`,
      dimension,
      value,
      method: 'lite',
      method_version: '1',
      frames: '{}',
      models: '[]',
      details: null,
      elapsed_ms: 1,
      created_at: now,
    });
    await db
      .insertInto('scores')
      .values([score(d0, 0.8), score(d1, 0.6)])
      .execute();
    const task = (seq: number, state: 'done' | 'evaluating' | 'pending', video: string | null) => ({
      id: `${run.id}-t${seq}`,
      run_id: run.id,
      seq,
      prompt: 'a cat',
      auxiliary: JSON.stringify({ object: 'cat' }),
      dimensions: JSON.stringify([d0, d1]),
      sample_index: seq,
      seed: 100 + seq,
      state,
      runner_id: null,
      attempts: state === 'pending' ? 0 : 1,
      lease_expires_at: null,
      video_id: video,
      error_code: null,
      error_detail: null,
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto('bench_tasks')
      .values([
        task(0, 'done', `${run.id}-v1`),
        task(1, 'evaluating', `${run.id}-v2`),
        task(2, 'pending', null),
      ])
      .execute();

    const got = (await call('GET', `/api/v1/bench/${run.id}`, alice.key)).json();
    expect(got.progress).toEqual({
      tasks_total: 3,
      tasks_generated: 2,
      tasks_done: 1,
      tasks_failed: 0,
      clips_total: 3,
      clips_evaluated: 1,
    });

    const videos = (await call('GET', `/api/v1/bench/${run.id}/videos?limit=2`, alice.key)).json();
    expect(videos).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(videos.items[0]).toMatchObject({
      task_id: `${run.id}-t0`,
      prompt: 'a cat',
      auxiliary: { object: 'cat' },
      sample_index: 0,
      seed: 100,
      state: 'done',
      video_id: `${run.id}-v1`,
      scores: [
        { dimension: [d0, d1].sort()[0], method: 'lite', method_version: '1' },
        { dimension: [d0, d1].sort()[1], method: 'lite', method_version: '1' },
      ],
      failures: [],
    });
    expect(videos.items[1]).toMatchObject({ state: 'evaluating', scores: [] });

    const csv = await call('GET', `/api/v1/bench/${run.id}/csv`, alice.key);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="${run.id}.csv"`);
    const rows = csv.text
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(rows[0]).toEqual([
      'dimension',
      'category',
      'score',
      'normalised_score',
      'clips',
      'method',
      'ci95_low',
      'ci95_high',
      'prompts',
    ]);
    const byName = new Map(rows.slice(1).map((r) => [r[0], r]));
    // One prompt: a score, but no interval (its spread cannot be estimated).
    expect(byName.get(d0)?.slice(2)).toEqual(['0.8', expect.any(String), '1', 'lite', '', '', '1']);
    expect(byName.get(d1)?.slice(2, 6)).toEqual(['0.6', expect.any(String), '1', 'lite']);
    expect([...byName.keys()].slice(-3)).toEqual(['Quality', 'Semantic', 'Total']);
    // The live scorecard says the same, provisional; the run has none until it ends.
    const live = (await call('GET', `/api/v1/bench/${run.id}/scorecard`, alice.key)).json();
    expect(live).toMatchObject({ final: false, level: 0.95, resamples: 10000 });
    expect(live.dimensions[0]).toMatchObject({ score: 0.8, clips: 1, prompts: 1, ci95_low: null });
    expect((await call('GET', `/api/v1/bench/${run.id}`, alice.key)).json().scorecard).toBeNull();

    // Cancel stops the unfinished clips; delete then removes clips, their blobs, tasks and logs.
    await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key);
    // The run ended: its scorecard is final and stored with it.
    const ended = (await call('GET', `/api/v1/bench/${run.id}`, alice.key)).json();
    expect(ended.scorecard).toMatchObject({ final: true, dimensions: live.dimensions });
    expect(typeof (await server.deps.repos.benchRuns.byId(run.id))?.scorecard).toBe('string');
    const after = (await call('GET', `/api/v1/bench/${run.id}/videos`, alice.key)).json();
    expect(after.items.map((t: Json) => t.state)).toEqual(['done', 'cancelled', 'cancelled']);
    expect((await call('DELETE', `/api/v1/bench/${run.id}`, alice.key)).status).toBe(204);
    for (const key of blobKeys) expect(await server.deps.blobs.stat(key)).toBeNull();
    expect(await db.selectFrom('videos').select('id').where('id', 'like', `${run.id}-%`).execute()).toEqual(
      [],
    );
    expect(await db.selectFrom('bench_tasks').select('id').where('run_id', '=', run.id).execute()).toEqual(
      [],
    );
    expect(
      await db.selectFrom('scores').select('video_id').where('video_id', 'like', `${run.id}-%`).execute(),
    ).toEqual([]);
  });

  it('pages timestamped log lines oldest first', async () => {
    const run = await createRun(alice);
    await service.appendLog(run.id, 'runner', 'warn', 'runner gpu-1: slow start');
    await call('POST', `/api/v1/bench/${run.id}/cancel`, alice.key);
    const page1 = (await call('GET', `/api/v1/bench/${run.id}/logs?limit=2`, alice.key)).json();
    expect(page1).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(page1.items[1]).toMatchObject({
      source: 'runner',
      level: 'warn',
      message: 'runner gpu-1: slow start',
    });
    expect(Date.parse(page1.items[0].time)).toBeGreaterThan(0);
    expect(page1.items[0].seq).toBeLessThan(page1.items[1].seq);
    const page2 = (await call('GET', `/api/v1/bench/${run.id}/logs?limit=2&page=2`, alice.key)).json();
    expect(page2.items).toEqual([
      expect.objectContaining({
        source: 'server',
        message: 'queued → cancelled: run cancelled by its owner',
      }),
    ]);
    const defaults = (await call('GET', `/api/v1/bench/${run.id}/logs`, alice.key)).json();
    expect(defaults.limit).toBe(100);
  });

  it('writes an empty scorecard for a run with no clips yet', async () => {
    const run = await createRun(alice, { dimensions: usable.slice(0, 1) });
    const csv = await call('GET', `/api/v1/bench/${run.id}/csv`, alice.key);
    expect(csv.text).toBe(
      [
        'dimension,category,score,normalised_score,clips,method,ci95_low,ci95_high,prompts',
        `${usable[0]},quality,,,0,,,,0`,
        'Quality,aggregate,,,0,,,,0',
        'Semantic,aggregate,,,0,,,,0',
        'Total,aggregate,,,0,,,,0',
        '',
      ].join('\r\n'),
    );
  });
});
