/**
 * The Rank workflow: the prompt lock (the first confirmed candidate; an upload that never arrives
 * locks nothing), RANK_PROMPT_MISMATCH at upload-url and at confirm, prompt optional after the lock, and the leaderboard on real scores (formula, order, unscored last).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLeaderboard } from '../src/services/leaderboard.js';
import type { VideoView } from '../src/domain/views/score-rank.js';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

const PROMPT = 'A blue tiger in the grass in the sunset, surrounded by butterflies.';
const h = () => ({ 'x-api-key': key });
const getSession = async () =>
  (await server.app.inject({ method: 'GET', url: '/api/v1/rank', headers: h() })).json();
const requestUpload = (runId: string, payload: Record<string, unknown>) =>
  server.app.inject({
    method: 'POST',
    url: `/api/v1/rank/${runId}/videos/upload-url`,
    headers: h(),
    payload,
  });
const ranked = async (runId: string) =>
  server.app.inject({ method: 'GET', url: `/api/v1/rank/${runId}/ranked`, headers: h() });

async function uploadAndConfirm(
  runId: string,
  file: string,
  payload: Record<string, unknown> = {},
): Promise<string> {
  const res = await requestUpload(runId, {
    fileName: path.basename(file),
    contentType: 'video/mp4',
    ...payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  const u = new URL(res.json().uploadUrl);
  expect(
    (
      await server.app.inject({
        method: 'PUT',
        url: u.pathname + u.search,
        headers: { 'content-type': 'video/mp4' },
        payload: readFileSync(file),
      })
    ).statusCode,
  ).toBe(200);
  const c = await server.app.inject({
    method: 'POST',
    url: `/api/v1/rank/${runId}/videos/confirm-upload`,
    headers: h(),
    payload: { videoId: res.json().videoId },
  });
  expect(c.statusCode, c.body).toBe(200);
  return res.json().videoId;
}

describe('Rank prompt lock', () => {
  it('needs a prompt until a candidate is stored; an upload that never arrives locks nothing; the first confirmed candidate locks its prompt', async () => {
    const s = await getSession();
    expect(s).toMatchObject({ kind: 'rank', prompt: null, promptLocked: false, videos: [] });
    const noPrompt = await requestUpload(s.runId, { fileName: 'a.mp4', contentType: 'video/mp4' });
    expect(noPrompt.statusCode).toBe(400);
    expect(noPrompt.json().code).toBe('validation_failed');
    // A refused request (bad file name) does not lock the session.
    expect(
      (
        await requestUpload(s.runId, {
          fileName: 'a/b.mp4',
          contentType: 'video/mp4',
          prompt: 'something else',
        })
      ).statusCode,
    ).toBe(400);
    expect((await getSession()).promptLocked).toBe(false);

    // An upload URL whose bytes never arrive (the browser's PUT failed) locks nothing: another
    // prompt is still accepted.
    const abandoned = await requestUpload(s.runId, {
      fileName: 'abandoned.mp4',
      contentType: 'video/mp4',
      prompt: 'A red tiger',
    });
    expect(abandoned.statusCode).toBe(201);
    expect(await getSession()).toMatchObject({ prompt: null, promptLocked: false });

    const file = clip('modelscope-t2v__blue-tiger-butterflies.mp4');
    const first = await uploadAndConfirm(s.runId, file, { prompt: `  ${PROMPT} ` });
    expect(await getSession()).toMatchObject({ prompt: PROMPT, promptLocked: true });

    // The abandoned upload arrives after all: it was for another prompt, so confirm refuses it and
    // removes it (no candidate left waiting, no bytes kept).
    const u = new URL(abandoned.json().uploadUrl);
    const put = await server.app.inject({
      method: 'PUT',
      url: u.pathname + u.search,
      headers: { 'content-type': 'video/mp4' },
      payload: readFileSync(file),
    });
    expect(put.statusCode).toBe(200);
    const late = await server.app.inject({
      method: 'POST',
      url: `/api/v1/rank/${s.runId}/videos/confirm-upload`,
      headers: h(),
      payload: { videoId: abandoned.json().videoId },
    });
    expect(late.statusCode).toBe(400);
    expect(late.json().code).toBe('RANK_PROMPT_MISMATCH');
    expect(late.json().detail).toContain(JSON.stringify(PROMPT));
    expect((await getSession()).videos.map((v: { videoId: string }) => v.videoId)).toEqual([first]);
    expect(existsSync(path.join(server.dataDir, 'blobs', 'videos', abandoned.json().videoId))).toBe(false);

    const same = await requestUpload(s.runId, {
      fileName: 'b.mp4',
      contentType: 'video/mp4',
      prompt: PROMPT,
    });
    expect(same.statusCode).toBe(201);
    const omitted = await requestUpload(s.runId, { fileName: 'c.mp4', contentType: 'video/mp4' });
    expect(omitted.statusCode).toBe(201);
    const different = await requestUpload(s.runId, {
      fileName: 'd.mp4',
      contentType: 'video/mp4',
      prompt: 'A red tiger',
    });
    expect(different.statusCode).toBe(400);
    expect(different.json().code).toBe('RANK_PROMPT_MISMATCH');
    const videos = (await getSession()).videos;
    expect(videos).toHaveLength(3);
    expect(videos.every((v: { prompt: string }) => v.prompt === PROMPT)).toBe(true);

    const reset = await server.app.inject({ method: 'POST', url: '/api/v1/rank/reset', headers: h() });
    expect(reset.json()).toMatchObject({ prompt: null, promptLocked: false, videos: [] });
    expect((await ranked(s.runId)).statusCode).toBe(409);
  });

  it('two candidates for different prompts confirmed at once: one locks the session, the other is refused and removed', async () => {
    const { runId } = await getSession();
    const bytes = readFileSync(clip('modelscope-t2v__snail-macro.mp4'));
    const tickets = [];
    for (const prompt of ['a snail, macro shot', 'a slug, macro shot']) {
      const res = await requestUpload(runId, { fileName: 'snail.mp4', contentType: 'video/mp4', prompt });
      expect(res.statusCode).toBe(201);
      const u = new URL(res.json().uploadUrl);
      const put = await server.app.inject({
        method: 'PUT',
        url: u.pathname + u.search,
        headers: { 'content-type': 'video/mp4' },
        payload: bytes,
      });
      expect(put.statusCode).toBe(200);
      tickets.push({ videoId: res.json().videoId as string, prompt });
    }
    const answers = await Promise.all(
      tickets.map((t) =>
        server.app.inject({
          method: 'POST',
          url: `/api/v1/rank/${runId}/videos/confirm-upload`,
          headers: h(),
          payload: { videoId: t.videoId },
        }),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    const winner = tickets[answers.findIndex((a) => a.statusCode === 200)]!;
    expect(answers.find((a) => a.statusCode === 400)!.json().code).toBe('RANK_PROMPT_MISMATCH');
    const s = await getSession();
    expect(s).toMatchObject({ prompt: winner.prompt, promptLocked: true });
    expect(s.videos.map((v: { videoId: string }) => v.videoId)).toEqual([winner.videoId]);
    await server.app.inject({ method: 'POST', url: '/api/v1/rank/reset', headers: h() });
  });
});

describe('Rank leaderboard', () => {
  it('orders scored candidates by the documented overall score and lists unscored ones last', async () => {
    const { runId } = await getSession();
    const files = [
      'zeroscope-v2__blue-tiger-butterflies.mp4',
      'modelscope-t2v__blue-tiger-butterflies.mp4',
    ].map(clip);
    const ids = [await uploadAndConfirm(runId, files[0]!, { prompt: PROMPT })];
    ids.push(await uploadAndConfirm(runId, files[1]!));
    const pending = (await requestUpload(runId, { fileName: 'pending.mp4', contentType: 'video/mp4' })).json()
      .videoId;

    await waitFor(
      getSession,
      (s) =>
        ids.every((id) => s.videos.find((v: { videoId: string }) => v.videoId === id)?.state === 'scored'),
      120_000,
    );
    const res = await ranked(runId);
    expect(res.statusCode).toBe(200);
    const board = res.json();
    expect(board).toMatchObject({ runId, prompt: PROMPT });
    expect(board.formula).toContain('min');
    // One clip per candidate: the board says there is no interval rather than showing one.
    expect(board.uncertainty).toContain('single clip has no confidence interval');
    expect(board.entries).toHaveLength(3);
    const [first, second, last] = board.entries;
    expect([first.rank, second.rank, last.rank]).toEqual([1, 2, null]);
    expect(last).toMatchObject({ videoId: pending, overall: null, state: 'awaiting_upload', scores: [] });
    expect(first.overall).toBeGreaterThanOrEqual(second.overall);
    expect(new Set([first.videoId, second.videoId])).toEqual(new Set(ids));

    // The overall score, recomputed here from the registry's VBench constants.
    const dims = server.deps.engine.dimensions();
    for (const e of [first, second]) {
      let sum = 0;
      let w = 0;
      for (const s of e.scores) {
        const { min, max, weight } = dims.find((d) => d.id === s.dimension)!.normalisation;
        sum += (weight * (s.value - min)) / (max - min);
        w += weight;
      }
      expect(e.overall).toBeCloseTo(sum / w, 12);
      expect(e.fileName).toMatch(/blue-tiger/);
    }
  });

  it('breaks ties by earlier confirm, then videoId', () => {
    const dims = server.deps.engine.dimensions();
    const d = dims.find((x) => x.defaultMethod !== null)!;
    const video = (id: string, confirmedAt: string, value: number): VideoView => ({
      videoId: id,
      fileName: `${id}.mp4`,
      contentType: 'video/mp4',
      prompt: 'p',
      auxiliary: null,
      state: 'scored',
      error: null,
      sizeBytes: 1,
      dimensions: [d.id],
      scores: [
        {
          dimension: d.id,
          value,
          method: 'lite',
          methodVersion: '1',
          frames: { count: 1, width: 1, height: 1, sampling: { kind: 'all' } },
          models: [],
          elapsedMs: 1,
        },
      ],
      failures: [],
      promptNotice: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      uploadedAt: null,
      confirmedAt,
      scoredAt: null,
    });
    const board = buildLeaderboard('r', 'p', [
      video('vid_c', '2026-01-01T00:00:02.000Z', 0.9),
      video('vid_b', '2026-01-01T00:00:01.000Z', 0.9),
      video('vid_a', '2026-01-01T00:00:02.000Z', 0.9),
      video('vid_top', '2026-01-01T00:00:09.000Z', 0.95),
    ]);
    expect(board.entries.map((e) => [e.rank, e.videoId])).toEqual([
      [1, 'vid_top'],
      [2, 'vid_b'],
      [3, 'vid_a'],
      [4, 'vid_c'],
    ]);
  });
});
