/**
 * Rankings and scores that silently ignore the prompt (issue #24 item 6): on a server without the
 * models of the dimensions that read the prompt (this test server is offline, with no model
 * pulled), a Rank leaderboard and a scored Score clip carry `promptNotice`, naming those dimensions
 * and the command that fetches their model; with a prompt-reading dimension scored there is none.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DimensionInfo } from '@vesta/engine';
import { promptNotice, unscorableNow } from '../src/services/prompt-notice.js';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer, Json } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

const PROMPT = 'Toad practicing karate.';
const NOTICE = {
  code: 'prompt_not_read',
  dimensions: ['temporal_style', 'overall_consistency'],
  models: ['clip-vit-b32'],
  command: 'vesta models pull clip-vit-b32',
};

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
  return res.json<Json>();
}

async function uploadScored(kind: 'score' | 'rank', file: string): Promise<Json> {
  const runId = (await call('GET', `/api/v1/${kind}`)).runId as string;
  const ticket = await call('POST', `/api/v1/${kind}/${runId}/videos/upload-url`, {
    fileName: file,
    contentType: 'video/mp4',
    prompt: PROMPT,
  });
  const u = new URL(ticket.uploadUrl as string);
  await server.app.inject({
    method: 'PUT',
    url: u.pathname + u.search,
    headers: { 'content-type': 'video/mp4' },
    payload: readFileSync(clip(file)),
  });
  await call('POST', `/api/v1/${kind}/${runId}/videos/confirm-upload`, { videoId: ticket.videoId });
  return waitFor(
    () => call('GET', `/api/v1/${kind}`),
    (s) => (s.videos as Json[]).every((v) => v.state === 'scored' || v.state === 'failed'),
    120_000,
  );
}

describe('prompt notice without the prompt-reading models', () => {
  it('a Rank leaderboard says it does not read the prompt, and which command fixes it', async () => {
    const session = await uploadScored('rank', 'zeroscope-v2__toad-karate.mp4');
    const board = await call('GET', `/api/v1/rank/${session.runId as string}/ranked`);
    expect(board.entries[0].rank).toBe(1);
    expect(board.promptNotice).toMatchObject(NOTICE);
    expect(board.promptNotice.detail).toBe(
      'this ranking does not read the prompt: temporal_style and overall_consistency need the model clip-vit-b32 — `vesta models pull clip-vit-b32`',
    );
  }, 180_000);

  it('a scored Score clip says its scores do not read the prompt; a clip not yet scored says nothing', async () => {
    const session = await uploadScored('score', 'show-1__panda-selfie.mp4');
    const [video] = session.videos as Json[];
    expect(video!.state).toBe('scored');
    expect(video!.promptNotice).toMatchObject(NOTICE);
    expect(video!.promptNotice.detail).toMatch(/^these scores do not read the prompt: /);
    const runId = session.runId as string;
    const pending = await call('POST', `/api/v1/score/${runId}/videos/upload-url`, {
      fileName: 'x.mp4',
      contentType: 'video/mp4',
      prompt: PROMPT,
    });
    const listed = ((await call('GET', '/api/v1/score')).videos as Json[]).find(
      (v) => v.videoId === pending.videoId,
    );
    expect(listed!.promptNotice).toBeNull();
  }, 180_000);

  it('is null once a dimension that reads the prompt is among the scores, or without a prompt', () => {
    const dims = server.deps.engine.dimensions();
    expect(promptNotice(dims, 'rank', PROMPT, ['subject_consistency'])).not.toBeNull();
    expect(promptNotice(dims, 'rank', PROMPT, ['subject_consistency', 'overall_consistency'])).toBeNull();
    expect(promptNotice(dims, 'rank', null, ['subject_consistency'])).toBeNull();
    expect(promptNotice(dims, 'score', PROMPT, [])).toBeNull();
  });
});

/** A runner of the demo model, and a one-clip Bench run of `dimensions` it has claimed. */
async function benchRun(dimensions: string[]): Promise<{ run: Json; runnerId: string }> {
  const runner = await call('POST', '/api/v1/runners', { name: 'notice-runner', models: ['vesta-demo'] });
  const run = await call('POST', '/api/v1/bench', {
    name: 'notice',
    model_id: 'vesta-demo',
    dimensions,
    samples_per_prompt: 1,
    prompts_per_dimension: 1,
  });
  return { run, runnerId: runner.id as string };
}

/** The runner claims the run's one task and hands in a real clip; the worker scores it. */
async function generateAndScore(runnerId: string, runId: string): Promise<Json> {
  const claimed = await call('POST', `/api/v1/runners/${runnerId}/claim`, { waitSeconds: 0 });
  const task = claimed.task as Json;
  expect(JSON.stringify(task)).toContain(runId);
  const up = await call('POST', `/api/v1/runner-tasks/${task.id as string}/upload-url`, {
    leaseId: task.lease.id,
    fileName: 'clip.mp4',
    contentType: 'video/mp4',
  });
  const u = new URL(up.uploadUrl as string);
  const put = await server.app.inject({
    method: 'PUT',
    url: u.pathname + u.search,
    headers: { 'content-type': 'video/mp4' },
    payload: readFileSync(clip('zeroscope-v2__toad-karate.mp4')),
  });
  expect(put.statusCode, put.body).toBe(200);
  await call('POST', `/api/v1/runner-tasks/${task.id as string}/complete`, {
    leaseId: task.lease.id,
    videoId: up.videoId,
  });
  return waitFor(
    () => call('GET', `/api/v1/bench/${runId}`),
    (r) => r.status === 'completed' || r.status === 'failed',
    120_000,
  );
}

const BENCH_NOTICE = {
  ...NOTICE,
  detail:
    "this run's scores do not read the prompts: temporal_style and overall_consistency need the model clip-vit-b32 — `vesta models pull clip-vit-b32`",
};

/** A run that asked for no dimension reading the prompt: pulling the model would not change its scores. */
const BENCH_NOTICE_NONE_ASKED = {
  ...NOTICE,
  detail:
    "this run's scores do not read the prompts: none of its dimensions reads them; temporal_style and overall_consistency would, and need the model clip-vit-b32 — `vesta models pull clip-vit-b32`",
};

describe('Bench runs: prompt notice and the dimensions that could not be scored', () => {
  it('a run of model-free dimensions says from its creation on that its scores do not read the prompts', async () => {
    const { run } = await benchRun(['subject_consistency', 'temporal_flickering']);
    expect(run.prompt_notice).toEqual(BENCH_NOTICE_NONE_ASKED);
    expect(run.unscored_dimensions).toEqual([]);
    const got = await call('GET', `/api/v1/bench/${run.id as string}`);
    expect(got.prompt_notice).toEqual(BENCH_NOTICE_NONE_ASKED);
    const listed = ((await call('GET', '/api/v1/bench?limit=100')).items as Json[]).find(
      (r) => r.id === run.id,
    );
    expect(listed!.prompt_notice).toEqual(BENCH_NOTICE_NONE_ASKED);
    // Out of the way of the next test's runner (it would claim this run's task first).
    const cancelled = await call('POST', `/api/v1/bench/${run.id as string}/cancel`);
    expect(cancelled.status).toBe('cancelled');
    // Ended with no clip scored: no numbers, nothing to say about them.
    expect(cancelled.prompt_notice).toBeNull();
  });

  it('a dimension asked for whose model is gone is named with why and the command, live and once ended', async () => {
    // A run made while clip-vit-b32 was on the server asked for overall_consistency; the model has
    // gone since (this server has none): the run and its task hold the dimension as created then.
    const { run, runnerId } = await benchRun(['subject_consistency']);
    const runId = run.id as string;
    const dims = JSON.stringify(['subject_consistency', 'overall_consistency']);
    await server.deps.db
      .updateTable('bench_runs')
      .set({ dimensions: dims })
      .where('id', '=', runId)
      .execute();
    await server.deps.db
      .updateTable('bench_tasks')
      .set({ dimensions: dims })
      .where('run_id', '=', runId)
      .execute();
    const gone = {
      dimension: 'overall_consistency',
      code: 'model_unavailable',
      detail:
        'overall_consistency was not scored: it needs the model clip-vit-b32, not on this server — `vesta models pull clip-vit-b32`',
      models: ['clip-vit-b32'],
      command: 'vesta models pull clip-vit-b32',
    };
    const live = await call('GET', `/api/v1/bench/${runId}`);
    expect(live.status).toBe('queued');
    expect(live.unscored_dimensions).toEqual([gone]);
    // overall_consistency reads the prompt but cannot be scored: the notice stays.
    expect(live.prompt_notice).toEqual(BENCH_NOTICE);

    const ended = await generateAndScore(runnerId, runId);
    // A dimension of the run without one scored clip fails the run; its error says which, the
    // unscored dimension says why and what fixes it.
    expect(ended.status).toBe('failed');
    expect(ended.error.code).toBe('no_scored_clips');
    const row = (ended.scorecard.dimensions as Json[]).find((d) => d.dimension === 'overall_consistency');
    expect(row).toMatchObject({ score: null, clips: 0 });
    expect(ended.unscored_dimensions).toEqual([gone]);
    // The CSV keeps VBench's column layout: the dimension's row is there, its cells empty.
    const csv = await server.app.inject({
      method: 'GET',
      url: `/api/v1/bench/${runId}/csv`,
      headers: { 'x-api-key': key },
    });
    expect(csv.body.split('\r\n')[0]).toBe(
      'dimension,category,score,normalised_score,clips,method,ci95_low,ci95_high,prompts',
    );

    // The model pulled since: the run still has no score on it, and says why from its clips'
    // failures (as the engine recorded them), with no command left to run.
    const engine = server.deps.engine;
    const real = engine.dimensions.bind(engine);
    engine.dimensions = () =>
      real().map((d): DimensionInfo =>
        d.id === 'overall_consistency' ? { ...d, defaultMethod: 'clip' } : d,
      );
    try {
      const later = await call('GET', `/api/v1/bench/${runId}`);
      expect(later.unscored_dimensions).toHaveLength(1);
      expect(later.unscored_dimensions[0]).toMatchObject({
        dimension: 'overall_consistency',
        code: 'model_unavailable',
        models: [],
        command: null,
      });
      expect(later.unscored_dimensions[0].detail).toMatch(
        /^overall_consistency was not scored \(model_unavailable\): .*clip-vit-b32/,
      );
    } finally {
      engine.dimensions = real;
    }
  }, 180_000);

  it('creating a run with a dimension this server cannot score names it, why, and the command', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/bench',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', model_id: 'vesta-demo', dimensions: ['overall_consistency'] }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>().detail).toContain("dimension 'overall_consistency' has no method available");
    expect(res.json<Json>().detail).toContain('vesta models pull clip-vit-b32');
  });

  it('unscorableNow: null for a dimension the server can score or does not know', () => {
    const dims = server.deps.engine.dimensions();
    expect(unscorableNow(dims, 'subject_consistency')).toBeNull();
    expect(unscorableNow(dims, 'no_such_dimension')).toBeNull();
    expect(unscorableNow(dims, 'scene')).toMatchObject({
      code: 'model_unavailable',
      models: ['clip-vit-b32'],
    });
  });
});
