/**
 * Removing one clip from a Score session and one candidate from a Rank session (issue #24 item 7,
 * an addition to the interface): owner-only, the clip's row, scores, failures and bytes all gone,
 * the session's run id and other clips kept; a clip being scored or being uploaded may be removed
 * (its job cancelled, its PUT refused); the Rank leaderboard ranks the rest again; the last stored
 * candidate removed lifts the prompt lock. Another user's session 403, an unknown run or clip 404,
 * a reset run 409.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer, Json } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;
let other: string;

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
  key = await server.key();
  other = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

type Kind = 'score' | 'rank';
const CLIPS = [
  'show-1__panda-selfie.mp4',
  'zeroscope-v2__burning-lamborghini-rainbow.mp4',
  'zeroscope-v2__toad-karate.mp4',
];

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, k = key, payload?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': k },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
  return { status: res.statusCode, body: res.body, json: (): Json => res.json() };
}

const session = async (kind: Kind, k = key): Promise<Json> =>
  (await call('GET', `/api/v1/${kind}`, k)).json();

async function mint(
  kind: Kind,
  runId: string,
  file: string,
  k = key,
): Promise<{ videoId: string; url: string }> {
  const r = await call('POST', `/api/v1/${kind}/${runId}/videos/upload-url`, k, {
    fileName: file,
    contentType: 'video/mp4',
    prompt: 'Toad practicing karate.',
  });
  expect(r.status, r.body).toBe(201);
  const u = new URL(r.json().uploadUrl as string);
  return { videoId: r.json().videoId as string, url: u.pathname + u.search };
}

const put = (url: string, file: string) =>
  server.app.inject({
    method: 'PUT',
    url,
    headers: { 'content-type': 'video/mp4' },
    payload: readFileSync(clip(file)),
  });

async function upload(kind: Kind, runId: string, file: string, k = key): Promise<string> {
  const { videoId, url } = await mint(kind, runId, file, k);
  expect((await put(url, file)).statusCode).toBe(200);
  const c = await call('POST', `/api/v1/${kind}/${runId}/videos/confirm-upload`, k, { videoId });
  expect(c.status, c.body).toBe(200);
  return videoId;
}

const scoredAll = (kind: Kind, n: number) =>
  waitFor(
    () => session(kind),
    (s) =>
      (s.videos as Json[]).length === n &&
      (s.videos as Json[]).every((v) => v.state === 'scored' || v.state === 'failed'),
    120_000,
  );

/** What the database and the blob store still hold of a clip. */
async function remains(
  videoId: string,
): Promise<{ rows: number; scores: number; failures: number; bytes: boolean }> {
  const db = server.deps.db;
  const count = async (table: 'videos' | 'scores' | 'score_failures', column: 'id' | 'video_id') =>
    (await db.selectFrom(table).select(column).where(column, '=', videoId).execute()).length;
  return {
    rows: await count('videos', 'id'),
    scores: await count('scores', 'video_id'),
    failures: await count('score_failures', 'video_id'),
    bytes: existsSync(path.join(server.dataDir, 'blobs', 'videos', videoId)),
  };
}
const NOTHING = { rows: 0, scores: 0, failures: 0, bytes: false };

describe('DELETE /api/v1/score/{id}/videos/{videoId}', () => {
  it("removes one scored clip with its scores and bytes; the run id and the other clip stay; again, another session's clip, an unknown run: 404; another user's run: 403; a reset run: 409", async () => {
    const runId = (await session('score')).runId as string;
    const gone = await upload('score', runId, CLIPS[0]!);
    const kept = await upload('score', runId, CLIPS[1]!);
    await scoredAll('score', 2);
    const before = await remains(gone);
    expect(before.rows).toBe(1);
    expect(before.scores).toBeGreaterThan(0);
    expect(before.bytes).toBe(true);

    // Another user can neither remove it nor learn anything of it.
    const theirs = await call('DELETE', `/api/v1/score/${runId}/videos/${gone}`, other);
    expect(theirs.status, theirs.body).toBe(403);
    expect(theirs.json().code).toBe('forbidden');
    // Nor through their own session: it is not a clip of that session.
    const otherRun = (await session('score', other)).runId as string;
    const viaOwn = await call('DELETE', `/api/v1/score/${otherRun}/videos/${gone}`, other);
    expect(viaOwn.status).toBe(404);
    expect(viaOwn.json().code).toBe('not_found');
    expect((await remains(gone)).rows).toBe(1);

    const r = await call('DELETE', `/api/v1/score/${runId}/videos/${gone}`);
    expect(r.status, r.body).toBe(204);
    expect(r.body).toBe('');
    expect(await remains(gone)).toEqual(NOTHING);
    const after = await session('score');
    expect(after.runId).toBe(runId);
    expect((after.videos as Json[]).map((v) => v.videoId)).toEqual([kept]);
    expect((await remains(kept)).bytes).toBe(true);

    const again = await call('DELETE', `/api/v1/score/${runId}/videos/${gone}`);
    expect(again.status).toBe(404);
    expect(again.json().code).toBe('not_found');
    expect((await call('DELETE', `/api/v1/score/score_nope/videos/${kept}`)).status).toBe(404);
    // A Rank run id on the Score path is no Score run.
    const rankRun = (await session('rank')).runId as string;
    expect((await call('DELETE', `/api/v1/score/${rankRun}/videos/${kept}`)).status).toBe(404);

    await call('POST', '/api/v1/score/reset');
    const reset = await call('DELETE', `/api/v1/score/${runId}/videos/${kept}`);
    expect(reset.status).toBe(409);
    expect(reset.json().code).toBe('conflict');
  }, 180_000);

  it('removes a clip while it is being scored: its job stops, no score of it is ever written, and the next clip is scored', async () => {
    const runId = (await session('score')).runId as string;
    const videoId = await upload('score', runId, CLIPS[2]!);
    // Caught while the worker scores it (a clip takes over a second; the state is polled every 100 ms).
    const state = async () =>
      (await server.deps.db.selectFrom('videos').select('state').where('id', '=', videoId).executeTakeFirst())
        ?.state;
    await waitFor(state, (s) => s === 'scoring' || s === 'scored', 60_000).then((s) =>
      expect(s).toBe('scoring'),
    );
    const r = await call('DELETE', `/api/v1/score/${runId}/videos/${videoId}`);
    expect(r.status, r.body).toBe(204);
    expect(await remains(videoId)).toEqual(NOTHING);
    const next = await upload('score', runId, CLIPS[0]!);
    await scoredAll('score', 1);
    expect((await session('score')).videos[0].videoId).toBe(next);
    // Nothing of the removed clip came back meanwhile.
    expect(await remains(videoId)).toEqual(NOTHING);
  }, 180_000);

  it('removes a clip awaiting its upload: the PUT that follows is refused and leaves no bytes', async () => {
    const runId = (await session('score')).runId as string;
    const { videoId, url } = await mint('score', runId, CLIPS[0]!);
    expect((await call('DELETE', `/api/v1/score/${runId}/videos/${videoId}`)).status).toBe(204);
    const late = await put(url, CLIPS[0]!);
    expect(late.statusCode).toBe(404);
    expect(late.json().code).toBe('not_found');
    expect(await remains(videoId)).toEqual(NOTHING);
  });
});

describe('DELETE /api/v1/rank/{id}/videos/{videoId}', () => {
  it('removes one candidate: the leaderboard ranks the others again; the last one removed lifts the prompt lock', async () => {
    const runId = (await session('rank')).runId as string;
    const ids = [];
    for (const f of CLIPS) ids.push(await upload('rank', runId, f));
    await scoredAll('rank', 3);
    const board = (await call('GET', `/api/v1/rank/${runId}/ranked`)).json();
    expect((board.entries as Json[]).map((e) => e.rank)).toEqual([1, 2, 3]);
    const first = board.entries[0].videoId as string;
    const rest = (board.entries as Json[]).slice(1).map((e) => e.videoId as string);

    expect((await call('DELETE', `/api/v1/rank/${runId}/videos/${first}`, other)).status).toBe(403);
    expect((await call('DELETE', `/api/v1/rank/${runId}/videos/${first}`)).status).toBe(204);
    expect(await remains(first)).toEqual(NOTHING);
    const again = (await call('GET', `/api/v1/rank/${runId}/ranked`)).json();
    expect((again.entries as Json[]).map((e) => [e.rank, e.videoId])).toEqual([
      [1, rest[0]],
      [2, rest[1]],
    ]);
    expect((await session('rank')).promptLocked).toBe(true);

    for (const id of rest)
      expect((await call('DELETE', `/api/v1/rank/${runId}/videos/${id}`)).status).toBe(204);
    const empty = await session('rank');
    expect(empty).toMatchObject({ runId, prompt: null, promptLocked: false, videos: [] });
    expect((await call('GET', `/api/v1/rank/${runId}/ranked`)).json().entries).toEqual([]);
    // Another prompt is accepted now, and locks the session again once stored.
    const r = await call('POST', `/api/v1/rank/${runId}/videos/upload-url`, key, {
      fileName: 'x.mp4',
      contentType: 'video/mp4',
      prompt: 'A panda taking a selfie.',
    });
    expect(r.status, r.body).toBe(201);
  }, 180_000);
});
