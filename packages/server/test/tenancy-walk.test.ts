/**
 * The two-user walk (docs/security.md): user A creates one of everything — a scored Score clip, a
 * Rank session with a clip, a runner declaring a private model, a Bench run of that model with a
 * claimed task and a minted clip — then user B calls EVERY operation of the OpenAPI document
 * against A's ids and B's own listings. B must see nothing of A (no id, name, description, prompt,
 * file name, count or timing of A's in any answer), get 403/404 (documented for the operation) on
 * every route that names A's resource, find A's private model id exactly as absent as an id nobody
 * declared, and change nothing of A's. Every operation of the document must be classified here, so
 * a new route fails this test until it is walked.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished } from 'node:stream/promises';
import { clip, startCoreServer, waitFor } from './helpers/core-app.js';
import { seedRun } from './helpers/bench-seed.js';
import type { CoreTestServer } from './helpers/core-app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies read in assertions
type Json = Record<string, any>;
interface Reply {
  /** What B sent (URL and body): an echo of it is no leak. */
  sent: string;
  status: number;
  text: string;
  headers: string;
  json(): Json;
}

interface OpenApiOperation {
  operationId: string;
  responses: Record<string, unknown>;
}
const document = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, OpenApiOperation>> };
const operations = Object.entries(document.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), ...op })),
);

let server: CoreTestServer;
let keyA: string;
let keyB: string;
let keyC: string;
/** A judge of A's campaign (issue #23): sees that campaign's clips, blinded, and nothing else of A's. */
let keyD: string;

/** Everything of A's that B must never read. */
const secrets: string[] = [];
const a = {} as {
  userId: string;
  scoreId: string;
  scoreVideoId: string;
  rankId: string;
  rankVideoId: string;
  runnerId: string;
  benchId: string;
  taskId: string;
  leaseId: string;
  taskVideoId: string;
  taskUploadUrl: string;
  campaignId: string;
  judgeId: string;
};
const b = {} as { scoreId: string; rankId: string };

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  key: string,
  body?: unknown,
): Promise<Reply> {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return {
    sent: `${url} ${JSON.stringify(body ?? null)}`,
    status: res.statusCode,
    text: res.body,
    headers: JSON.stringify(res.headers),
    json: (): Json => res.json(),
  };
}

async function put(uploadUrl: string, bytes: Buffer): Promise<Reply> {
  const url = new URL(uploadUrl, 'http://x');
  const res = await server.app.inject({
    method: 'PUT',
    url: `${url.pathname}${url.search}`,
    headers: { 'content-type': 'video/mp4' },
    payload: bytes,
  });
  return {
    sent: uploadUrl,
    status: res.statusCode,
    text: res.body,
    headers: JSON.stringify(res.headers),
    json: (): Json => res.json(),
  };
}

async function ok(reply: Promise<Reply>, status = 200): Promise<Json> {
  const r = await reply;
  expect(r.status, r.text).toBe(status);
  return r.status === 204 ? {} : r.json();
}

/** B's answer leaks nothing of A's: no secret in its body or headers (but for what B sent). */
function expectNothingOfA(r: Reply, what: string): void {
  for (const s of secrets) {
    if (r.sent.includes(s)) continue;
    expect(r.text.includes(s), `${what}: the body contains A's ${JSON.stringify(s)}: ${r.text}`).toBe(false);
    expect(r.headers.includes(s), `${what}: a header contains A's ${JSON.stringify(s)}`).toBe(false);
  }
}

/** B is refused on A's resource: 403 or 404, documented for the operation, and nothing of A's in it. */
function expectRefused(r: Reply, operationId: string): void {
  const op = operations.find((o) => o.operationId === operationId);
  expect(op, operationId).toBeDefined();
  expect([403, 404], `${operationId}: ${r.status} ${r.text}`).toContain(r.status);
  expect(Object.keys(op!.responses), `${operationId} documents ${r.status}`).toContain(String(r.status));
  expect(r.json().code).toBe(r.status === 403 ? 'forbidden' : 'not_found');
  expectNothingOfA(r, operationId);
}

const clipBytes = readFileSync(clip('show-1__panda-selfie.mp4'));

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
  keyA = await server.key('acme-secret-user');
  keyB = await server.key();
  keyC = await server.key();
  keyD = await server.key('walk-judge-d');

  a.scoreId = (await ok(call('GET', '/api/v1/score', keyA))).runId as string;
  const scoreTicket = await ok(
    call('POST', `/api/v1/score/${a.scoreId}/videos/upload-url`, keyA, {
      fileName: 'acme-secret-clip.mp4',
      contentType: 'video/mp4',
      prompt: 'acme secret prompt',
    }),
    201,
  );
  a.scoreVideoId = scoreTicket.videoId as string;
  await ok(put(scoreTicket.uploadUrl as string, clipBytes));
  await ok(
    call('POST', `/api/v1/score/${a.scoreId}/videos/confirm-upload`, keyA, { videoId: a.scoreVideoId }),
  );

  a.rankId = (await ok(call('GET', '/api/v1/rank', keyA))).runId as string;
  const rankTicket = await ok(
    call('POST', `/api/v1/rank/${a.rankId}/videos/upload-url`, keyA, {
      fileName: 'acme-rank-candidate.mp4',
      contentType: 'video/mp4',
      prompt: 'acme secret rank prompt',
    }),
    201,
  );
  a.rankVideoId = rankTicket.videoId as string;

  const runner = await ok(
    call('POST', '/api/v1/runners', keyA, { name: 'acme-secret-runner', models: ['acme-secret-v7'] }),
    201,
  );
  a.runnerId = runner.id as string;
  const run = await ok(
    call('POST', '/api/v1/bench', keyA, {
      name: 'acme-secret-run',
      dimensions: ['subject_consistency'],
      model_id: 'acme-secret-v7',
      samples_per_prompt: 1,
      prompts_per_dimension: 1,
    }),
    201,
  );
  a.benchId = run.id as string;
  const { task } = await ok(call('POST', `/api/v1/runners/${a.runnerId}/claim`, keyA, { waitSeconds: 0 }));
  a.taskId = task.id as string;
  a.leaseId = task.lease.id as string;
  const taskTicket = await ok(
    call('POST', `/api/v1/runner-tasks/${a.taskId}/upload-url`, keyA, {
      leaseId: a.leaseId,
      fileName: 'acme-generated.mp4',
      contentType: 'video/mp4',
    }),
    201,
  );
  a.taskVideoId = taskTicket.videoId as string;
  a.taskUploadUrl = taskTicket.uploadUrl as string;

  // A's clip is scored: its scores and timings exist to be leaked.
  await waitFor(
    () => call('GET', '/api/v1/score', keyA),
    (r) => (r.json().videos as Json[])[0]?.state === 'scored',
    60_000,
  );
  a.userId = (
    await server.deps.db
      .selectFrom('users')
      .select('id')
      .where('name', '=', 'acme-secret-user')
      .executeTakeFirstOrThrow()
  ).id;

  // A's judging campaign over two seeded runs of A's, with D as its judge.
  for (const id of ['acme-secret-jrun-a', 'acme-secret-jrun-b']) {
    await seedRun(server, {
      id,
      userId: a.userId,
      model: 'vesta-demo',
      clips: [0, 1, 2].map((p) => ({
        prompt: `walk-0${p}`,
        group: 'walk',
        sample: 0,
        scores: { aesthetic_quality: 0.5 },
      })),
    });
    for (const v of [0, 1, 2]) {
      const row = await server.deps.db
        .selectFrom('videos')
        .select('blob_key')
        .where('id', '=', `${id}-v${v}`)
        .executeTakeFirstOrThrow();
      const w = await server.deps.blobs.createWrite(row.blob_key);
      w.stream.end(Buffer.from(`walk clip ${id} ${v}`));
      await finished(w.stream);
      await w.commit();
    }
  }
  const campaign = await ok(
    call('POST', '/api/v1/judging/campaigns', keyA, {
      name: 'walk campaign',
      benchRunIds: ['acme-secret-jrun-a', 'acme-secret-jrun-b'],
    }),
    201,
  );
  a.campaignId = campaign.id as string;
  a.judgeId = (
    await ok(
      call('POST', `/api/v1/judging/campaigns/${a.campaignId}/judges`, keyA, { userName: 'walk-judge-d' }),
      201,
    )
  ).judge.id as string;

  secrets.push(
    a.userId,
    a.campaignId,
    a.judgeId,
    'acme-secret-jrun-a',
    'acme-secret-jrun-b',
    'acme-secret-user',
    a.scoreId,
    a.scoreVideoId,
    a.rankId,
    a.rankVideoId,
    a.runnerId,
    a.benchId,
    a.taskId,
    a.leaseId,
    a.taskVideoId,
    new URL(a.taskUploadUrl).searchParams.get('token') ?? a.taskUploadUrl,
    new URL(scoreTicket.uploadUrl as string).searchParams.get('token') ?? 'x',
    'acme-secret-runner',
    'acme-secret-v7',
    'acme-secret-run',
    'acme-secret-clip',
    'acme secret prompt',
    'acme-rank-candidate',
    'acme secret rank prompt',
    'acme-generated',
  );

  b.scoreId = (await ok(call('GET', '/api/v1/score', keyB))).runId as string;
  b.rankId = (await ok(call('GET', '/api/v1/rank', keyB))).runId as string;
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** What B does with each operation of the document; a new operation fails until it is added. */
const WALK: Record<string, () => Promise<void>> = {
  // ---- Score and Rank: B has sessions of its own; A's run ids are refused.
  getScoreSession: async () => {
    const r = await call('GET', '/api/v1/score', keyB);
    expect(r.status).toBe(200);
    expect(r.json().runId).toBe(b.scoreId);
    expect(r.json().videos).toEqual([]);
    expectNothingOfA(r, 'getScoreSession');
  },
  resetScoreSession: async () => {
    const r = await call('POST', '/api/v1/score/reset', keyB);
    expect(r.status, r.text).toBe(200);
    expectNothingOfA(r, 'resetScoreSession');
    b.scoreId = r.json().runId as string;
  },
  createScoreUploadUrl: async () => {
    const body = { fileName: 'b.mp4', contentType: 'video/mp4', prompt: 'b' };
    expectRefused(
      await call('POST', `/api/v1/score/${a.scoreId}/videos/upload-url`, keyB, body),
      'createScoreUploadUrl',
    );
  },
  confirmScoreUpload: async () => {
    const videoId = { videoId: a.scoreVideoId };
    expectRefused(
      await call('POST', `/api/v1/score/${a.scoreId}/videos/confirm-upload`, keyB, videoId),
      'confirmScoreUpload',
    );
    // A's video through B's own session.
    expectRefused(
      await call('POST', `/api/v1/score/${b.scoreId}/videos/confirm-upload`, keyB, videoId),
      'confirmScoreUpload',
    );
  },
  removeScoreVideo: async () => {
    expectRefused(
      await call('DELETE', `/api/v1/score/${a.scoreId}/videos/${a.scoreVideoId}`, keyB),
      'removeScoreVideo',
    );
    // A's clip through B's own session: not a clip of it.
    expectRefused(
      await call('DELETE', `/api/v1/score/${b.scoreId}/videos/${a.scoreVideoId}`, keyB),
      'removeScoreVideo',
    );
    expect((await ok(call('GET', '/api/v1/score', keyA))).videos[0].videoId).toBe(a.scoreVideoId);
  },
  getRankSession: async () => {
    const r = await call('GET', '/api/v1/rank', keyB);
    expect(r.status).toBe(200);
    expect(r.json().runId).toBe(b.rankId);
    expectNothingOfA(r, 'getRankSession');
  },
  resetRankSession: async () => {
    const r = await call('POST', '/api/v1/rank/reset', keyB);
    expect(r.status, r.text).toBe(200);
    expectNothingOfA(r, 'resetRankSession');
    b.rankId = r.json().runId as string;
  },
  createRankUploadUrl: async () => {
    const body = { fileName: 'b.mp4', contentType: 'video/mp4', prompt: 'b' };
    expectRefused(
      await call('POST', `/api/v1/rank/${a.rankId}/videos/upload-url`, keyB, body),
      'createRankUploadUrl',
    );
  },
  confirmRankUpload: async () => {
    const videoId = { videoId: a.rankVideoId };
    expectRefused(
      await call('POST', `/api/v1/rank/${a.rankId}/videos/confirm-upload`, keyB, videoId),
      'confirmRankUpload',
    );
    expectRefused(
      await call('POST', `/api/v1/rank/${b.rankId}/videos/confirm-upload`, keyB, videoId),
      'confirmRankUpload',
    );
  },
  removeRankVideo: async () => {
    expectRefused(
      await call('DELETE', `/api/v1/rank/${a.rankId}/videos/${a.rankVideoId}`, keyB),
      'removeRankVideo',
    );
    expectRefused(
      await call('DELETE', `/api/v1/rank/${b.rankId}/videos/${a.rankVideoId}`, keyB),
      'removeRankVideo',
    );
    expect((await ok(call('GET', '/api/v1/rank', keyA))).videos[0].videoId).toBe(a.rankVideoId);
  },
  getRankLeaderboard: async () => {
    expectRefused(await call('GET', `/api/v1/rank/${a.rankId}/ranked`, keyB), 'getRankLeaderboard');
  },

  // ---- Uploads: a ticket is bound to its video; B's ticket does not open A's video.
  putUpload: async () => {
    const mine = await ok(
      call('POST', `/api/v1/score/${b.scoreId}/videos/upload-url`, keyB, {
        fileName: 'b.mp4',
        contentType: 'video/mp4',
        prompt: 'b',
      }),
      201,
    );
    const url = new URL(mine.uploadUrl as string);
    url.pathname = url.pathname.replace(mine.videoId as string, a.rankVideoId);
    const r = await put(url.toString(), clipBytes);
    expect([401, 403, 404], r.text).toContain(r.status);
    const op = operations.find((o) => o.operationId === 'putUpload')!;
    expect(Object.keys(op.responses)).toContain(String(r.status));
    expectNothingOfA(r, 'putUpload');
  },

  // ---- A stored clip's bytes: A's clips (Score, Rank, Bench) answer B exactly as a missing id.
  getVideoContent: async () => {
    const missing = 'a0000000-0000-4000-8000-000000000000';
    const none = await call('GET', `/api/v1/videos/${missing}/content`, keyB);
    expect(none.status).toBe(404);
    for (const id of [a.scoreVideoId, a.rankVideoId, a.taskVideoId]) {
      const r = await call('GET', `/api/v1/videos/${id}/content`, keyB);
      expectRefused(r, 'getVideoContent');
      expect(r.status).toBe(404);
      expect(r.json().detail).toBe((none.json().detail as string).replaceAll(missing, id));
    }
    // A reads its own scored clip.
    const own = await server.app.inject({
      method: 'GET',
      url: `/api/v1/videos/${a.scoreVideoId}/content`,
      headers: { 'x-api-key': keyA, range: 'bytes=0-15' },
    });
    expect(own.statusCode).toBe(206);
    expect(own.rawPayload.equals(clipBytes.subarray(0, 16))).toBe(true);
  },

  // ---- Bench runs.
  createBenchRun: async () => {
    const create = (model_id: string, runner_id?: string) =>
      call('POST', '/api/v1/bench', keyB, {
        name: 'b run',
        dimensions: ['subject_consistency'],
        model_id,
        ...(runner_id ? { runner_id } : {}),
      });
    // A's private model id answers exactly as an id nobody declared.
    const theirs = await create('acme-secret-v7');
    const nobodys = await create('acme-never-declared');
    expect(theirs.status).toBe(400);
    expect(nobodys.status).toBe(400);
    expect(theirs.json().code).toBe(nobodys.json().code);
    expect(theirs.json().detail).toBe(
      (nobodys.json().detail as string).replaceAll('acme-never-declared', 'acme-secret-v7'),
    );
    // A's runner id answers exactly as a runner id that does not exist.
    const theirRunner = await create('vesta-demo', a.runnerId);
    const noRunner = await create('vesta-demo', 'runner_00000000000000000000000000000000');
    expect(theirRunner.status).toBe(400);
    expect(theirRunner.json().detail).toBe(
      (noRunner.json().detail as string).replaceAll('runner_00000000000000000000000000000000', a.runnerId),
    );
  },
  listBenchRuns: async () => {
    const r = await call('GET', '/api/v1/bench', keyB);
    expect(r.status).toBe(200);
    expect(r.json().items).toEqual([]);
    expect(r.json().total).toBe(0);
    expectNothingOfA(r, 'listBenchRuns');
  },
  getBenchRun: async () => {
    expectRefused(await call('GET', `/api/v1/bench/${a.benchId}`, keyB), 'getBenchRun');
  },
  deleteBenchRun: async () => {
    expectRefused(await call('DELETE', `/api/v1/bench/${a.benchId}`, keyB), 'deleteBenchRun');
  },
  cancelBenchRun: async () => {
    expectRefused(await call('POST', `/api/v1/bench/${a.benchId}/cancel`, keyB), 'cancelBenchRun');
  },
  listBenchVideos: async () => {
    expectRefused(await call('GET', `/api/v1/bench/${a.benchId}/videos`, keyB), 'listBenchVideos');
  },
  getBenchCsv: async () => {
    expectRefused(await call('GET', `/api/v1/bench/${a.benchId}/csv`, keyB), 'getBenchCsv');
  },
  getBenchLogs: async () => {
    expectRefused(await call('GET', `/api/v1/bench/${a.benchId}/logs`, keyB), 'getBenchLogs');
  },
  compareBenchRuns: async () => {
    // A's run first: refused before anything of it is read.
    expectRefused(
      await call('GET', `/api/v1/bench/compare?runs=${a.benchId},bench_b_none`, keyB),
      'compareBenchRuns',
    );
  },
  // A model's baseline: A's private model is as absent for B as an id nobody declared.
  getModelBaseline: async () => {
    expectRefused(await call('GET', '/api/v1/models/acme-secret-v7/baseline', keyB), 'getModelBaseline');
  },
  setModelBaseline: async () => {
    expectRefused(
      await call('PUT', '/api/v1/models/acme-secret-v7/baseline', keyB, { run_id: a.benchId }),
      'setModelBaseline',
    );
    // A global model, A's run: B may not make it B's baseline.
    expectRefused(
      await call('PUT', '/api/v1/models/vesta-demo/baseline', keyB, { run_id: a.benchId }),
      'setModelBaseline',
    );
  },
  clearModelBaseline: async () => {
    expectRefused(await call('DELETE', '/api/v1/models/acme-secret-v7/baseline', keyB), 'clearModelBaseline');
  },
  getBenchScorecard: async () => {
    expectRefused(await call('GET', `/api/v1/bench/${a.benchId}/scorecard`, keyB), 'getBenchScorecard');
  },

  // ---- Judging campaigns (issue #23): B is no judge of A's campaign; every operation is refused.
  createJudgingCampaign: async () => {
    // A campaign of A's runs, or of A's and B's, is refused before anything of A's is read.
    expectRefused(
      await call('POST', '/api/v1/judging/campaigns', keyB, {
        name: 'b',
        benchRunIds: ['acme-secret-jrun-a', 'acme-secret-jrun-b'],
      }),
      'createJudgingCampaign',
    );
    expectRefused(
      await call('POST', '/api/v1/judging/campaigns', keyB, { name: 'b', rankSessionId: a.rankId }),
      'createJudgingCampaign',
    );
  },
  listJudgingCampaigns: async () => {
    const r = await call('GET', '/api/v1/judging/campaigns', keyB);
    expect(r.status).toBe(200);
    expect(r.json().items).toEqual([]);
    expectNothingOfA(r, 'listJudgingCampaigns');
  },
  getJudgingCampaign: async () => {
    expectRefused(await call('GET', `/api/v1/judging/campaigns/${a.campaignId}`, keyB), 'getJudgingCampaign');
  },
  closeJudgingCampaign: async () => {
    expectRefused(
      await call('POST', `/api/v1/judging/campaigns/${a.campaignId}/close`, keyB),
      'closeJudgingCampaign',
    );
  },
  revealJudgingCampaign: async () => {
    expectRefused(
      await call('POST', `/api/v1/judging/campaigns/${a.campaignId}/reveal`, keyB),
      'revealJudgingCampaign',
    );
  },
  deleteJudgingCampaign: async () => {
    expectRefused(
      await call('DELETE', `/api/v1/judging/campaigns/${a.campaignId}`, keyB),
      'deleteJudgingCampaign',
    );
  },
  listJudgingJudges: async () => {
    expectRefused(
      await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/judges`, keyB),
      'listJudgingJudges',
    );
  },
  addJudgingJudge: async () => {
    // B cannot make itself a judge of A's campaign.
    expectRefused(
      await call('POST', `/api/v1/judging/campaigns/${a.campaignId}/judges`, keyB, {
        userName: 'walk-judge-d',
      }),
      'addJudgingJudge',
    );
  },
  removeJudgingJudge: async () => {
    expectRefused(
      await call('DELETE', `/api/v1/judging/campaigns/${a.campaignId}/judges/${a.judgeId}`, keyB),
      'removeJudgingJudge',
    );
  },
  getNextJudgingPairs: async () => {
    expectRefused(
      await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/next-pairs`, keyB),
      'getNextJudgingPairs',
    );
  },
  castJudgingVote: async () => {
    expectRefused(
      await call('POST', `/api/v1/judging/campaigns/${a.campaignId}/votes`, keyB, {
        offerId: 'x',
        answer: 'left',
      }),
      'castJudgingVote',
    );
  },
  getJudgingClipContent: async () => {
    const clip = await server.deps.db
      .selectFrom('judging_clips')
      .select('id')
      .where('campaign_id', '=', a.campaignId)
      .executeTakeFirstOrThrow();
    expectRefused(
      await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/clips/${clip.id}/content`, keyB),
      'getJudgingClipContent',
    );
  },
  getJudgingRatings: async () => {
    expectRefused(
      await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/ratings`, keyB),
      'getJudgingRatings',
    );
  },
  getJudgingAgreement: async () => {
    expectRefused(
      await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/agreement`, keyB),
      'getJudgingAgreement',
    );
  },
  exportJudgingVotes: async () => {
    expectRefused(
      await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/export`, keyB),
      'exportJudgingVotes',
    );
  },

  // ---- Discovery: B's listings equal a fresh user's.
  listDimensions: async () => {
    const r = await call('GET', '/api/v1/dimensions', keyB);
    expect(r.status).toBe(200);
    expectNothingOfA(r, 'listDimensions');
    expect(r.text).toBe((await call('GET', '/api/v1/dimensions', keyC)).text);
  },
  listDimensionPrompts: async () => {
    const r = await call('GET', '/api/v1/dimensions/subject_consistency/prompts', keyB);
    expect(r.status).toBe(200);
    expectNothingOfA(r, 'listDimensionPrompts');
  },
  listModels: async () => {
    const r = await call('GET', '/api/v1/models', keyB);
    expect(r.status).toBe(200);
    expectNothingOfA(r, 'listModels');
    const c = await call('GET', '/api/v1/models', keyC);
    expect(r.json().items.filter((m: Json) => m.runners.length === 0)).toEqual(c.json().items);
  },

  // ---- Runners: B may declare A's private id and gets a model of its own; A's runner and tasks are refused.
  registerRunner: async () => {
    const r = await call('POST', '/api/v1/runners', keyB, { name: 'b-runner', models: ['acme-secret-v7'] });
    expect(r.status, r.text).toBe(201);
    const models = (await ok(call('GET', '/api/v1/models', keyB))).items as Json[];
    const own = models.find((m) => m.id === 'acme-secret-v7');
    expect(own?.description).toContain("'b-runner'");
    expect(own?.runners.map((x: Json) => x.id)).toEqual([r.json().id]);
    // B's runner serves B's model only: A's pending work is not B's to claim.
    const claim = await call('POST', `/api/v1/runners/${r.json().id as string}/claim`, keyB, {
      waitSeconds: 0,
    });
    expect(claim.status, claim.text).toBe(204);
    // B's run of that id is B's own, and A's runner does not see it.
    const run = await ok(
      call('POST', '/api/v1/bench', keyB, {
        name: 'b run',
        dimensions: ['subject_consistency'],
        model_id: 'acme-secret-v7',
        samples_per_prompt: 1,
        prompts_per_dimension: 1,
      }),
      201,
    );
    expect(run.model_id).toBe('acme-secret-v7');
    const aClaim = await call('POST', `/api/v1/runners/${a.runnerId}/claim`, keyA, { waitSeconds: 0 });
    expect(aClaim.status, aClaim.text).toBe(204);
    await ok(call('POST', `/api/v1/bench/${run.id as string}/cancel`, keyB));
  },
  listRunners: async () => {
    const r = await call('GET', '/api/v1/runners', keyB);
    expect(r.status).toBe(200);
    expectNothingOfA(r, 'listRunners');
    expect(r.json().items).toEqual([]);
  },
  getRunner: async () => {
    expectRefused(await call('GET', `/api/v1/runners/${a.runnerId}`, keyB), 'getRunner');
  },
  deregisterRunner: async () => {
    expectRefused(await call('DELETE', `/api/v1/runners/${a.runnerId}`, keyB), 'deregisterRunner');
  },
  claimRunnerTask: async () => {
    expectRefused(
      await call('POST', `/api/v1/runners/${a.runnerId}/claim`, keyB, { waitSeconds: 0 }),
      'claimRunnerTask',
    );
  },
  // Even holding A's lease id, B cannot act on A's task.
  heartbeatRunnerTask: async () => {
    expectRefused(
      await call('POST', `/api/v1/runner-tasks/${a.taskId}/heartbeat`, keyB, { leaseId: a.leaseId }),
      'heartbeatRunnerTask',
    );
  },
  createRunnerTaskUploadUrl: async () => {
    expectRefused(
      await call('POST', `/api/v1/runner-tasks/${a.taskId}/upload-url`, keyB, {
        leaseId: a.leaseId,
        fileName: 'b.mp4',
        contentType: 'video/mp4',
      }),
      'createRunnerTaskUploadUrl',
    );
  },
  completeRunnerTask: async () => {
    expectRefused(
      await call('POST', `/api/v1/runner-tasks/${a.taskId}/complete`, keyB, {
        leaseId: a.leaseId,
        videoId: a.taskVideoId,
      }),
      'completeRunnerTask',
    );
  },
  failRunnerTask: async () => {
    expectRefused(
      await call('POST', `/api/v1/runner-tasks/${a.taskId}/fail`, keyB, {
        leaseId: a.leaseId,
        error: 'b gives up',
        retryable: false,
      }),
      'failRunnerTask',
    );
  },

  // ---- Dashboard accounts (accounts.test.ts walks them with sessions): B's key is refused on every
  // session-only route, and the public ones tell B nothing of A.
  getSetupState: async () => {
    const r = await call('GET', '/api/v1/auth/setup', keyB);
    expect(r.status).toBe(200);
    expectNothingOfA(r, 'getSetupState');
  },
  setupFirstAdmin: async () => {
    const r = await call('POST', '/api/v1/auth/setup', keyB, { email: 'b@example.com', password: 'short' });
    expect(r.status).toBe(400);
    expectNothingOfA(r, 'setupFirstAdmin');
  },
  signIn: async () => {
    const r = await call('POST', '/api/v1/auth/sign-in', keyB, {
      email: 'acme@example.com',
      password: 'guess',
    });
    expect(r.status).toBe(401);
    expectNothingOfA(r, 'signIn');
  },
  acceptInvite: async () => {
    const r = await call('POST', '/api/v1/auth/accept-invite', keyB, {
      token: 'guess',
      password: 'long enough pw',
    });
    expect(r.status).toBe(401);
    expectNothingOfA(r, 'acceptInvite');
  },
  getCurrentSession: () => webSessionOnly('GET', '/api/v1/auth/session'),
  signOut: () => webSessionOnly('POST', '/api/v1/auth/sign-out'),
  changePassword: () =>
    webSessionOnly('POST', '/api/v1/account/password', {
      currentPassword: 'x',
      newPassword: 'long enough pw',
    }),
  listWebSessions: () => webSessionOnly('GET', '/api/v1/account/sessions'),
  revokeWebSession: () => webSessionOnly('DELETE', `/api/v1/account/sessions/${a.userId}`),
  listApiKeys: () => webSessionOnly('GET', '/api/v1/api-keys'),
  createApiKey: () => webSessionOnly('POST', '/api/v1/api-keys', { name: 'b' }),
  revokeApiKey: () => webSessionOnly('DELETE', `/api/v1/api-keys/${a.userId}`),
  listUsers: () => webSessionOnly('GET', '/api/v1/users'),
  disableUser: () => webSessionOnly('POST', `/api/v1/users/${a.userId}/disable`),
  listInvites: () => webSessionOnly('GET', '/api/v1/invites'),
  createInvite: () => webSessionOnly('POST', '/api/v1/invites', { email: 'b2@example.com' }),
  revokeInvite: () => webSessionOnly('DELETE', `/api/v1/invites/${a.userId}`),
};

/** A session-only route refuses B's key (401) and says nothing of A. */
async function webSessionOnly(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<void> {
  const r = await call(method, url, keyB, body);
  expect(r.status, `${method} ${url}: ${r.text}`).toBe(401);
  expect(r.json().code).toBe('unauthorized');
  expectNothingOfA(r, `${method} ${url}`);
}

describe('the two-user walk', () => {
  it('classifies every operation of the OpenAPI document', () => {
    expect(operations.map((o) => o.operationId).sort()).toEqual(Object.keys(WALK).sort());
  });

  it('shows B nothing of A on every operation, and B changes nothing of A', async () => {
    // B declaring A's private id comes last: from then on that id is B's own word too.
    const last = 'registerRunner';
    for (const op of operations) if (op.operationId !== last) await WALK[op.operationId]!();
    await WALK[last]!();

    // A's things are all still there, unchanged.
    const run = await ok(call('GET', `/api/v1/bench/${a.benchId}`, keyA));
    expect(run.status).toBe('generating');
    expect((await ok(call('GET', `/api/v1/runners/${a.runnerId}`, keyA))).models).toEqual(['acme-secret-v7']);
    const beat = await ok(
      call('POST', `/api/v1/runner-tasks/${a.taskId}/heartbeat`, keyA, { leaseId: a.leaseId }),
    );
    expect(beat.cancelled).toBe(false);
    const score = await ok(call('GET', '/api/v1/score', keyA));
    expect(score.runId).toBe(a.scoreId);
    expect(score.videos[0].state).toBe('scored');
    expect((await ok(call('GET', '/api/v1/rank', keyA))).runId).toBe(a.rankId);
    const models = (await ok(call('GET', '/api/v1/models', keyA))).items as Json[];
    const own = models.find((m) => m.id === 'acme-secret-v7');
    expect(own?.description).toContain("'acme-secret-runner'");
    expect(own?.runners.map((x: Json) => x.id)).toEqual([a.runnerId]);
    // A's upload ticket still works for A (B's attempts did not spend it).
    expect((await put(a.taskUploadUrl, clipBytes)).status).toBe(200);
    // A's campaign is untouched: open, D still its judge.
    const campaign = await ok(call('GET', `/api/v1/judging/campaigns/${a.campaignId}`, keyA));
    expect(campaign.status).toBe('open');
    expect(campaign.progress.judges).toBe(1);
  }, 120_000);

  it("shows a judge the campaign's clips, blinded, and nothing else of the owner's", async () => {
    const judged = [a.campaignId, a.judgeId];
    /** D's answer leaks nothing of A's but the campaign's own id and D's judge id. */
    const blind = (r: Reply, what: string) => {
      for (const s of secrets) {
        if (judged.includes(s) || r.sent.includes(s)) continue;
        expect(r.text.includes(s), `${what}: the judge reads A's ${JSON.stringify(s)}: ${r.text}`).toBe(
          false,
        );
        expect(r.headers.includes(s), `${what}: a header holds A's ${JSON.stringify(s)}`).toBe(false);
      }
    };
    const listed = await call('GET', '/api/v1/judging/campaigns', keyD);
    blind(listed, 'listJudgingCampaigns');
    expect(listed.json().items.map((c: Json) => c.id)).toEqual([a.campaignId]);
    const seen = await call('GET', `/api/v1/judging/campaigns/${a.campaignId}`, keyD);
    blind(seen, 'getJudgingCampaign');
    expect(seen.json()).toMatchObject({ role: 'judge', source: null, items: null, namesVisible: false });
    const next = await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/next-pairs?count=2`, keyD);
    expect(next.status, next.text).toBe(200);
    blind(next, 'getNextJudgingPairs');
    const offer = next.json().offers[0] as Json;
    for (const side of ['left', 'right']) {
      const res = await server.app.inject({
        method: 'GET',
        url: offer[side].contentUrl as string,
        headers: { 'x-api-key': keyD },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(/^walk clip /);
      const r: Reply = {
        sent: '',
        status: res.statusCode,
        text: '',
        headers: JSON.stringify(res.headers),
        json: () => ({}),
      };
      blind(r, 'getJudgingClipContent');
    }
    const vote = await call('POST', `/api/v1/judging/campaigns/${a.campaignId}/votes`, keyD, {
      offerId: offer.offerId,
      answer: 'left',
    });
    expect(vote.status, vote.text).toBe(201);
    blind(vote, 'castJudgingVote');
    // The owner's operations refuse the judge; so does everything else of A's.
    for (const [method, url, operationId] of [
      ['GET', `/api/v1/judging/campaigns/${a.campaignId}/judges`, 'listJudgingJudges'],
      ['GET', `/api/v1/judging/campaigns/${a.campaignId}/export`, 'exportJudgingVotes'],
      ['GET', `/api/v1/judging/campaigns/${a.campaignId}/agreement`, 'getJudgingAgreement'],
      ['GET', `/api/v1/judging/campaigns/${a.campaignId}/ratings`, 'getJudgingRatings'],
      ['POST', `/api/v1/judging/campaigns/${a.campaignId}/reveal`, 'revealJudgingCampaign'],
      ['POST', `/api/v1/judging/campaigns/${a.campaignId}/close`, 'closeJudgingCampaign'],
      ['DELETE', `/api/v1/judging/campaigns/${a.campaignId}`, 'deleteJudgingCampaign'],
      ['GET', `/api/v1/bench/${a.benchId}`, 'getBenchRun'],
      ['GET', '/api/v1/bench/acme-secret-jrun-a/videos', 'listBenchVideos'],
      ['GET', `/api/v1/videos/${a.scoreVideoId}/content`, 'getVideoContent'],
      ['GET', '/api/v1/videos/acme-secret-jrun-a-v0/content', 'getVideoContent'],
      ['GET', `/api/v1/rank/${a.rankId}/ranked`, 'getRankLeaderboard'],
    ] as const) {
      const r = await call(method, url, keyD);
      expect([403, 404], `${operationId}: ${r.status} ${r.text}`).toContain(r.status);
      blind(r, operationId);
    }
    // A clip of the campaign never offered to D is as absent as any other id.
    const offered = new Set((next.json().offers as Json[]).flatMap((o) => [o.left.clipId, o.right.clipId]));
    const others = await server.deps.db
      .selectFrom('judging_clips')
      .select('id')
      .where('campaign_id', '=', a.campaignId)
      .execute();
    for (const c of others.filter((x) => !offered.has(x.id))) {
      const r = await call('GET', `/api/v1/judging/campaigns/${a.campaignId}/clips/${c.id}/content`, keyD);
      expect(r.status).toBe(404);
    }
    const listedRuns = await call('GET', '/api/v1/bench', keyD);
    expect(listedRuns.json().total).toBe(0);
  });
});
