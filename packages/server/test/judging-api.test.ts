/**
 * Judging campaigns (issue #23) on a real server (SQLite and PostgreSQL): making a campaign from
 * Bench runs and from a Rank session, with each bad input's catalogue error; judges and blinding
 * (a judge's answers carry no run, model, file or video name; a non-judge gets 403); offers (left
 * and right randomised and recorded, the same offers again until answered, each pair once per
 * judge, the target votes per pair); votes and every integrity case (not offered, twice,
 * concurrently, after closing, a removed judge, a clip deleted after votes); the clip bytes through
 * the campaign's path; the export.
 */
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JudgingService } from '../src/services/judging.service.js';
import { startTestServer } from './helpers/bench-app.js';
import type { TestServer } from './helpers/bench-app.js';
import { grid, seedRun } from './helpers/bench-seed.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies read in assertions
type Json = Record<string, any>;

let server: TestServer;
let owner: { key: string; userId: string };
let judge1: { key: string; userId: string };
let judge2: { key: string; userId: string };
let stranger: { key: string; userId: string };
const names = { owner: `jo-${process.pid}`, j1: `jj1-${process.pid}`, j2: `jj2-${process.pid}` };

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, key: string, body?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, text: res.body, headers: res.headers, json: (): Json => res.json() };
}

async function ok(p: ReturnType<typeof call>, status = 200): Promise<Json> {
  const r = await p;
  expect(r.status, r.text).toBe(status);
  return status === 204 ? {} : r.json();
}

/** Bytes under a seeded clip's blob key, so that its content can be served. */
async function writeBlob(videoId: string, bytes: Buffer): Promise<void> {
  const row = await server.deps.db
    .selectFrom('videos')
    .select('blob_key')
    .where('id', '=', videoId)
    .executeTakeFirstOrThrow();
  const w = await server.deps.blobs.createWrite(row.blob_key);
  w.stream.end(bytes);
  await finished(w.stream);
  await w.commit();
}

const scores = (shift: number) => (p: number) => ({ aesthetic_quality: 0.5 + shift + 0.01 * p });

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.key(names.owner);
  judge1 = await server.key(names.j1);
  judge2 = await server.key(names.j2);
  stranger = await server.key();
  await server.deps.bench.models.upsert({ id: 'jm-secret-a', name: 'A', description: 'under test' });
  await server.deps.bench.models.upsert({ id: 'jm-secret-b', name: 'B', description: 'under test' });
  await seedRun(server, {
    id: 'jrun-secret-a',
    userId: owner.userId,
    model: 'jm-secret-a',
    clips: grid('overall_consistency', 6, 1, scores(0)),
  });
  await seedRun(server, {
    id: 'jrun-secret-b',
    userId: owner.userId,
    model: 'jm-secret-b',
    clips: grid('overall_consistency', 6, 1, scores(0.1)),
  });
  await seedRun(server, {
    id: 'jrun-other-suite',
    userId: owner.userId,
    model: 'jm-secret-a',
    suite: 'older',
    clips: grid('overall_consistency', 6, 1, scores(0)),
  });
  await seedRun(server, {
    id: 'jrun-strangers',
    userId: stranger.userId,
    model: 'jm-secret-a',
    clips: grid('overall_consistency', 6, 1, scores(0)),
  });
  for (const run of ['jrun-secret-a', 'jrun-secret-b'])
    for (let i = 0; i < 6; i++) await writeBlob(`${run}-v${i}`, Buffer.from(`clip ${run} ${i} `.repeat(20)));
});

afterAll(async () => {
  await server?.stop();
});

const create = (body: unknown, key = owner.key) => call('POST', '/api/v1/judging/campaigns', key, body);

describe('making a campaign', () => {
  it('refuses bad sources, each with its catalogue error', async () => {
    const cases: [unknown, number, string][] = [
      [{ name: 'x' }, 400, 'validation_failed'],
      [{ name: 'x', benchRunIds: ['jrun-secret-a'] }, 400, 'validation_failed'],
      [{ name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-secret-a'] }, 400, 'validation_failed'],
      [{ name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-other-suite'] }, 400, 'validation_failed'],
      [{ name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-nope'] }, 404, 'not_found'],
      [{ name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-strangers'] }, 403, 'forbidden'],
      [
        { name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], rankSessionId: 'r' },
        400,
        'validation_failed',
      ],
      [
        { name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], question: { kind: 'custom' } },
        400,
        'validation_failed',
      ],
      [{ name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], extra: 1 }, 400, 'invalid_field'],
      [
        { name: 'x', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], votesPerPair: 0 },
        400,
        'validation_failed',
      ],
    ];
    for (const [body, status, code] of cases) {
      const r = await create(body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(status);
      expect(r.json().code).toBe(code);
    }
  });

  it("refuses a Rank session of one candidate, and another user's session", async () => {
    const session = await ok(call('GET', '/api/v1/rank', owner.key));
    const ticket = await ok(
      call('POST', `/api/v1/rank/${session.runId as string}/videos/upload-url`, owner.key, {
        fileName: 'only.mp4',
        contentType: 'video/mp4',
        prompt: 'a lone prompt',
      }),
      201,
    );
    await server.deps.db
      .updateTable('videos')
      .set({ confirmed_at: Date.now(), state: 'scored' })
      .where('id', '=', ticket.videoId as string)
      .execute();
    const one = await create({ name: 'x', rankSessionId: session.runId });
    expect(one.status, one.text).toBe(400);
    expect(one.json().detail).toContain('at least two clips');
    const theirs = await create({ name: 'x', rankSessionId: session.runId }, stranger.key);
    expect(theirs.status).toBe(403);
  });

  it("makes pairs of two runs' clips of each prompt, with the default question", async () => {
    const c = await ok(create({ name: 'A vs B', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'] }), 201);
    expect(c.role).toBe('owner');
    expect(c.question).toEqual({ kind: 'overall', text: 'Which clip is better overall for this prompt?' });
    expect(c.progress).toMatchObject({ pairs: 6, clips: 12, votes: 0, judges: 0 });
    expect(c.items.map((i: Json) => i.label)).toEqual([
      'jm-secret-a · jrun-secret-a',
      'jm-secret-b · jrun-secret-b',
    ]);
    expect(c.votesPerPair).toBe(3);
  });
});

describe('judging a campaign', () => {
  let id: string;
  let judgeIds: Record<string, string>;

  beforeAll(async () => {
    const c = await ok(
      create({
        name: 'blind test',
        benchRunIds: ['jrun-secret-a', 'jrun-secret-b'],
        votesPerPair: 2,
        question: { kind: 'motion' },
      }),
      201,
    );
    id = c.id as string;
    const a = await ok(
      call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, { userName: names.j1 }),
      201,
    );
    const b = await ok(
      call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, { userName: names.j2 }),
      201,
    );
    judgeIds = { j1: a.judge.id as string, j2: b.judge.id as string };
    expect(a.judge).toMatchObject({ pseudonym: 'judge-1', status: 'active', userName: names.j1 });
    expect(a.invite).toBeNull();
    // Adding again answers the same judge.
    const again = await ok(
      call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, { userName: names.j1 }),
      201,
    );
    expect(again.judge.id).toBe(a.judge.id);
  });

  const SECRETS = ['jrun-secret', 'jm-secret', 'aesthetic', '.mp4'];
  const blind = (text: string) => {
    for (const s of SECRETS) expect(text.includes(s), `a judge's answer names ${s}: ${text}`).toBe(false);
  };

  it('shows a judge the campaign blinded and a stranger nothing', async () => {
    const seen = await call('GET', `/api/v1/judging/campaigns/${id}`, judge1.key);
    expect(seen.status).toBe(200);
    blind(seen.text);
    expect(seen.json()).toMatchObject({ role: 'judge', namesVisible: false, source: null, items: null });
    const listed = await call('GET', '/api/v1/judging/campaigns', judge1.key);
    blind(listed.text);
    expect(listed.json().items.map((c: Json) => c.id)).toEqual([id]);
    for (const [method, url] of [
      ['GET', `/api/v1/judging/campaigns/${id}`],
      ['GET', `/api/v1/judging/campaigns/${id}/next-pairs`],
      ['GET', `/api/v1/judging/campaigns/${id}/export`],
      ['GET', `/api/v1/judging/campaigns/${id}/judges`],
    ] as const) {
      const r = await call(method, url, stranger.key);
      expect(r.status, url).toBe(403);
      blind(r.text);
    }
    expect((await call('GET', '/api/v1/judging/campaigns', stranger.key)).json().items).toEqual([]);
    // Owner-only operations refuse a judge.
    expect((await call('GET', `/api/v1/judging/campaigns/${id}/judges`, judge1.key)).status).toBe(403);
    expect((await call('GET', `/api/v1/judging/campaigns/${id}/export`, judge1.key)).status).toBe(403);
    expect((await call('POST', `/api/v1/judging/campaigns/${id}/close`, judge1.key)).status).toBe(403);
    // The owner is no judge until they add themselves.
    expect((await call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, owner.key)).status).toBe(403);
  });

  it('offers blinded pairs, the same ones again until answered, and serves their clips by campaign path', async () => {
    const first = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs?count=2`, judge1.key));
    expect(first.offers).toHaveLength(2);
    expect(first.done).toBe(false);
    const text = JSON.stringify(first);
    blind(text);
    expect(text).not.toMatch(/-v\d/); // no seeded video id
    expect(first.offers[0].question).toBe('Which clip has the more natural, fluid motion?');
    expect(first.offers[0].prompt).toMatch(/^text of overall_consistency-0\d$/);
    const again = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs?count=2`, judge1.key));
    expect(again.offers.map((o: Json) => o.offerId)).toEqual(first.offers.map((o: Json) => o.offerId));

    const clip = await server.app.inject({
      method: 'GET',
      url: first.offers[0].left.contentUrl as string,
      headers: { 'x-api-key': judge1.key, range: 'bytes=0-4' },
    });
    expect(clip.statusCode).toBe(206);
    expect(clip.body).toBe('clip ');
    expect(clip.headers['content-disposition']).toBeUndefined();
    blind(JSON.stringify(clip.headers));
    // Judge 2 was not offered that clip (yet): 404; the owner reads it.
    const judge2Clip = await call('GET', first.offers[0].left.contentUrl as string, judge2.key);
    expect(judge2Clip.status).toBe(404);
    blind(judge2Clip.text);
    expect((await call('GET', first.offers[0].left.contentUrl as string, owner.key)).status).toBe(200);
  });

  it('records votes relative to the clips, refuses every integrity breach, and counts concurrent votes once', async () => {
    const { offers } = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, judge1.key));
    const offer = offers[0] as Json;
    // Another judge cannot vote on judge 1's offer; nor on a made-up one.
    const notMine = await call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge2.key, {
      offerId: offer.offerId,
      answer: 'left',
    });
    expect(notMine.status).toBe(409);
    expect(notMine.json().code).toBe('pair_not_offered');
    const madeUp = await call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
      offerId: 'nope',
      answer: 'left',
    });
    expect(madeUp.json().code).toBe('pair_not_offered');
    const badAnswer = await call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
      offerId: offer.offerId,
      answer: 'up',
    });
    expect(badAnswer.json().code).toBe('validation_failed');

    // Ten at once: one vote, nine already_voted.
    const all = await Promise.all(
      Array.from({ length: 10 }, () =>
        call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
          offerId: offer.offerId,
          answer: 'left',
        }),
      ),
    );
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    expect(all.filter((r) => r.status === 409).every((r) => r.json().code === 'already_voted')).toBe(true);
    const c = await ok(call('GET', `/api/v1/judging/campaigns/${id}`, owner.key));
    expect(c.progress.votes).toBe(1);
    const exported = await call('GET', `/api/v1/judging/campaigns/${id}/export?format=jsonl`, owner.key);
    const rows = exported.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      judge: 'judge-1',
      answer: 'left',
      winner_clip_id: offer.left.clipId,
      left_clip_id: offer.left.clipId,
      right_clip_id: offer.right.clipId,
      judge_removed: false,
    });
    expect(rows[0]!.left_video_id).toMatch(/^jrun-secret-[ab]-v\d$/);
    expect(rows[0]!.prompt).toMatch(/^text of overall_consistency/);
  });

  it('offers each pair once per judge and stops at the target votes per pair', async () => {
    // Judge 1 answers everything left to them.
    const seen = new Set<string>();
    for (let guard = 0; guard < 20; guard++) {
      const next = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, judge1.key));
      if (next.done) break;
      const offer = next.offers[0] as Json;
      const pairKey = [offer.left.clipId, offer.right.clipId].sort().join('|');
      expect(seen.has(pairKey), 'a pair offered twice to one judge').toBe(false);
      seen.add(pairKey);
      await ok(
        call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
          offerId: offer.offerId,
          answer: 'tie',
        }),
        201,
      );
    }
    // The sixth pair judge 1 voted on in the test before.
    expect(seen.size).toBe(5);
    // Judge 2 can take each pair once more (target 2); a skip does not count toward it.
    let judged = 0;
    for (let guard = 0; guard < 20; guard++) {
      const next = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, judge2.key));
      if (next.done) break;
      await ok(
        call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge2.key, {
          offerId: next.offers[0].offerId,
          answer: judged === 0 ? 'skip' : 'right',
        }),
        201,
      );
      judged++;
    }
    expect(judged).toBe(6);
    const c = await ok(call('GET', `/api/v1/judging/campaigns/${id}`, owner.key));
    expect(c.progress).toMatchObject({ pairs: 6, pairsComplete: 5, votes: 12 });
  });

  it("keeps a removed judge's votes (marked) and shuts them out", async () => {
    await ok(call('DELETE', `/api/v1/judging/campaigns/${id}/judges/${judgeIds.j2}`, owner.key), 204);
    const r = await call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, judge2.key);
    expect(r.status).toBe(403);
    const csv = await call('GET', `/api/v1/judging/campaigns/${id}/export`, owner.key);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'vote_id,time,judge,judge_removed,prompt,answer,winner_clip_id,left_clip_id,right_clip_id,left_video_id,right_video_id,left_item,right_item,left_label,right_label',
    );
    expect(lines).toHaveLength(13);
    expect(lines.filter((l) => l.includes(',judge-2,true,'))).toHaveLength(6);
    const judges = await ok(call('GET', `/api/v1/judging/campaigns/${id}/judges`, owner.key));
    expect(judges.items.map((j: Json) => j.status)).toEqual(['active', 'removed']);
    expect((await call('GET', `/api/v1/judging/campaigns/${id}/judges/nope`, owner.key)).status).toBe(404);
  });

  it('closes: no more votes, pairs or judges; the judges see the names', async () => {
    await ok(call('POST', `/api/v1/judging/campaigns/${id}/close`, owner.key));
    const next = await call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, judge1.key);
    expect(next.status).toBe(409);
    expect(next.json().code).toBe('judging_closed');
    const vote = await call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
      offerId: 'x',
      answer: 'left',
    });
    expect(vote.json().code).toBe('judging_closed');
    const add = await call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, {
      userName: names.j2,
    });
    expect(add.json().code).toBe('judging_closed');
    const seen = await ok(call('GET', `/api/v1/judging/campaigns/${id}`, judge1.key));
    expect(seen.namesVisible).toBe(true);
    expect(seen.items).toHaveLength(2);
  });
});

describe('a clip deleted after votes', () => {
  it('keeps the votes, withdraws its open offers and offers its pairs no more', async () => {
    const c = await ok(
      create({ name: 'deletion', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], votesPerPair: 1 }),
      201,
    );
    const id = c.id as string;
    await ok(call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, { userName: names.j1 }), 201);
    const { offers } = await ok(
      call('GET', `/api/v1/judging/campaigns/${id}/next-pairs?count=2`, judge1.key),
    );
    await ok(
      call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
        offerId: offers[0].offerId,
        answer: 'right',
      }),
      201,
    );
    const votedRow = (await call('GET', `/api/v1/judging/campaigns/${id}/export?format=jsonl`, owner.key))
      .text;
    const voted = JSON.parse(votedRow) as Json;
    // The clip of the vote's left side and the clip of the open offer's left side are deleted.
    const ids = [voted.left_video_id as string];
    const openLeft = await server.deps.db
      .selectFrom('judging_clips')
      .select('video_id')
      .where('id', '=', offers[1].left.clipId as string)
      .executeTakeFirstOrThrow();
    ids.push(openLeft.video_id!);
    for (const videoId of ids) {
      await server.deps.db.deleteFrom('scores').where('video_id', '=', videoId).execute();
      await server.deps.db
        .updateTable('bench_tasks')
        .set({ video_id: null })
        .where('video_id', '=', videoId)
        .execute();
      await server.deps.db.deleteFrom('videos').where('id', '=', videoId).execute();
    }
    const after = await ok(call('GET', `/api/v1/judging/campaigns/${id}`, owner.key));
    expect(after.progress.clipsDeleted).toBe(2);
    expect(after.progress.votes).toBe(1);
    const next = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs?count=3`, judge1.key));
    expect(next.offers.map((o: Json) => o.offerId)).not.toContain(offers[1].offerId);
    const withdrawn = await call('POST', `/api/v1/judging/campaigns/${id}/votes`, judge1.key, {
      offerId: offers[1].offerId,
      answer: 'left',
    });
    expect(withdrawn.json().code).toBe('conflict');
    const row = JSON.parse(
      (await call('GET', `/api/v1/judging/campaigns/${id}/export?format=jsonl`, owner.key)).text,
    ) as Json;
    expect(row.left_video_id).toBeNull();
    expect(row.answer).toBe('right');
    expect(
      (
        await call(
          'GET',
          `/api/v1/judging/campaigns/${id}/clips/${voted.left_clip_id as string}/content`,
          owner.key,
        )
      ).status,
    ).toBe(404);
  });
});

describe('ratings and agreement', () => {
  it('rates from the votes (B preferred on every prompt), shows judges their ratings only once revealed, and measures each dimension', async () => {
    // Runs with a dimension that agrees with the judges (B scores higher) on 6 prompts.
    const c = await ok(
      create({ name: 'ratings', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], votesPerPair: 2 }),
      201,
    );
    const id = c.id as string;
    // Two clips were deleted by the test before: the pairs are those of the clips left.
    const n = 2 * (c.progress.pairs as number);
    expect(n).toBeGreaterThanOrEqual(8);
    for (const name of [names.j1, names.j2])
      await ok(call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, { userName: name }), 201);
    const clipItem = new Map(
      (
        await server.deps.db
          .selectFrom('judging_clips')
          .select(['id', 'item'])
          .where('campaign_id', '=', id)
          .execute()
      ).map((r) => [r.id, r.item]),
    );
    for (const key of [judge1.key, judge2.key])
      for (let guard = 0; guard < 10; guard++) {
        const next = await ok(call('GET', `/api/v1/judging/campaigns/${id}/next-pairs`, key));
        if (next.done) break;
        const o = next.offers[0] as Json;
        // Every judge prefers run B's clip, wherever it is shown.
        const answer = clipItem.get(o.left.clipId as string) === 'jrun-secret-b' ? 'left' : 'right';
        await ok(
          call('POST', `/api/v1/judging/campaigns/${id}/votes`, key, { offerId: o.offerId, answer }),
          201,
        );
      }
    const hidden = await call('GET', `/api/v1/judging/campaigns/${id}/ratings`, judge1.key);
    expect(hidden.status).toBe(403);
    const r = await ok(call('GET', `/api/v1/judging/campaigns/${id}/ratings`, owner.key));
    expect(r.votes).toBe(n);
    expect(r.items.map((i: Json) => i.item)).toEqual(['jrun-secret-b', 'jrun-secret-a']);
    expect(r.items[0].wins).toBe(n);
    expect(r.items[0].rating).toBeGreaterThan(r.items[1].rating);
    expect(r.items[0].ci95Low).toBeLessThanOrEqual(r.items[0].rating);
    const cell = (r.winMatrix as Json[]).find(
      (x) => x.item === 'jrun-secret-b' && x.opponent === 'jrun-secret-a',
    );
    expect(cell, JSON.stringify(r.winMatrix)).toMatchObject({ wins: n, losses: 0 });
    expect(r.judges.map((j: Json) => j.judge).sort()).toEqual(['judge-1', 'judge-2']);
    expect(r.judges.every((j: Json) => j.agreement === 1 && j.belowChance === false)).toBe(true);
    // The same votes give the same figures.
    expect(await ok(call('GET', `/api/v1/judging/campaigns/${id}/ratings`, owner.key))).toEqual(r);

    const agreement = await ok(call('GET', `/api/v1/judging/campaigns/${id}/agreement`, owner.key));
    const aesthetic = (agreement.dimensions as Json[]).find((d) => d.dimension === 'aesthetic_quality');
    expect(aesthetic).toMatchObject({ pairs: n, agreement: 1 });
    expect((await call('GET', `/api/v1/judging/campaigns/${id}/agreement`, judge1.key)).status).toBe(403);

    await ok(call('POST', `/api/v1/judging/campaigns/${id}/reveal`, owner.key));
    const seen = await ok(call('GET', `/api/v1/judging/campaigns/${id}/ratings`, judge1.key));
    expect(seen.judges).toBeNull();
    expect(seen.items[0].label).toBe('jm-secret-b · jrun-secret-b');
  });
});

describe('adding a judge by an email with no account', () => {
  it('refuses a non-admin owner unless an admin invited that email, and binds the judge when it is accepted', async () => {
    expect((await server.deps.repos.users.account(owner.userId)).role).not.toBe('admin');
    const c = await ok(create({ name: 'invites', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'] }), 201);
    const url = `/api/v1/judging/campaigns/${c.id as string}/judges`;
    const email = `nobody-${process.pid}@example.com`;
    const refused = await call('POST', url, owner.key, { email: email.toUpperCase() });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json().code).toBe('judge_not_invited');
    expect(refused.json().detail).toContain(`ask an admin to invite ${email}`);
    // Nothing was added.
    expect((await ok(call('GET', url, owner.key))).items).toEqual([]);
    // Once an admin's invite to that email is pending, the owner may add it: the judge waits for it.
    await server.deps.services.users.createInvite(stranger.userId, { email });
    const added = await ok(call('POST', url, owner.key, { email }), 201);
    expect(added.judge).toMatchObject({ status: 'invited', email });
    expect(added.invite).toBeNull();
  });
});

describe('ratings and agreement kept between GETs', () => {
  it('answers a repeat GET without recomputing, and a new vote, a judge removal and a clip deletion each change the answer', async () => {
    const c = await ok(
      create({ name: 'kept', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], votesPerPair: 2 }),
      201,
    );
    const id = c.id as string;
    const base = `/api/v1/judging/campaigns/${id}`;
    const judgeIds: string[] = [];
    for (const name of [names.j1, names.j2])
      judgeIds.push((await ok(call('POST', `${base}/judges`, owner.key, { userName: name }), 201)).judge.id);
    const voteOnce = async (key: string, answer: 'left' | 'right'): Promise<boolean> => {
      const next = await ok(call('GET', `${base}/next-pairs`, key));
      if (next.done) return false;
      await ok(call('POST', `${base}/votes`, key, { offerId: next.offers[0].offerId, answer }), 201);
      return true;
    };
    for (let i = 0; i < 3; i++) {
      await voteOnce(judge1.key, 'left');
      await voteOnce(judge2.key, 'right');
    }
    const ratings = () => ok(call('GET', `${base}/ratings`, owner.key));
    const agreement = () => ok(call('GET', `${base}/agreement`, owner.key));
    const first = await ratings();
    const firstAgreement = await agreement();
    expect(first.votes).toBe(6);

    // A repeat GET reads no votes: the kept answer.
    const reads = vi.spyOn(server.deps.repos.judging, 'votesOf');
    try {
      expect(await ratings()).toEqual(first);
      expect(await agreement()).toEqual(firstAgreement);
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }

    // A new vote.
    expect(await voteOnce(judge1.key, 'right')).toBe(true);
    const afterVote = await ratings();
    expect(afterVote.votes).toBe(7);
    expect((await agreement()).votes).toBe(7);

    // A judge removed: their votes no longer count; added again, they count again.
    await ok(call('DELETE', `${base}/judges/${judgeIds[1]!}`, owner.key), 204);
    const afterRemoval = await ratings();
    expect(afterRemoval.votes).toBe(4);
    expect(afterRemoval.votesExcluded).toBe(3);
    expect(afterRemoval.judges.map((j: Json) => j.judge)).toEqual(['judge-1']);
    expect((await agreement()).votes).toBe(4);
    await ok(call('POST', `${base}/judges`, owner.key, { userName: names.j2 }), 201);
    expect(await ratings()).toEqual(afterVote);

    // A clip deleted: its scores no longer take part in the agreement.
    const before = await agreement();
    const dimension = (a: Json) => (a.dimensions as Json[]).find((d) => d.dimension === 'aesthetic_quality')!;
    expect(dimension(before).pairs).toBe(7);
    const voted = JSON.parse(
      (await call('GET', `${base}/export?format=jsonl`, owner.key)).text.trim().split('\n')[0]!,
    ) as Json;
    const videoId = voted.left_video_id as string;
    await server.deps.db.deleteFrom('scores').where('video_id', '=', videoId).execute();
    await server.deps.db
      .updateTable('bench_tasks')
      .set({ video_id: null })
      .where('video_id', '=', videoId)
      .execute();
    await server.deps.db.deleteFrom('videos').where('id', '=', videoId).execute();
    const afterDeletion = await agreement();
    expect(dimension(afterDeletion).pairs).toBeLessThan(7);
    expect(afterDeletion).not.toEqual(before);
  });
});

describe('pairs offered by two processes at once', () => {
  it('never exceeds the target votes per pair nor offers a pair twice to a judge, and fills every pair', async () => {
    // Two services over one database, each with its own kept pair order: two api processes.
    const one = server.deps.services.judging;
    const two = new JudgingService(server.deps.repos, {
      isAdmin: () => Promise.resolve(false),
      invite: () => Promise.reject(new Error('no invites in this test')),
      hasPendingInvite: () => Promise.resolve(false),
    });
    const c = await ok(
      create({ name: 'two processes', benchRunIds: ['jrun-secret-a', 'jrun-secret-b'], votesPerPair: 3 }),
      201,
    );
    const id = c.id as string;
    const pairs = c.progress.pairs as number;
    const people = [owner, judge1, judge2, stranger];
    for (const p of people)
      await ok(
        call('POST', `/api/v1/judging/campaigns/${id}/judges`, owner.key, {
          userName: (await server.deps.repos.users.account(p.userId)).name,
        }),
        201,
      );
    const seen = new Map<string, Set<string>>();
    await Promise.all(
      people.map(async (p, k) => {
        const mine = new Set<string>();
        seen.set(p.userId, mine);
        for (let round = 0; round < 40; round++) {
          const asker = (round + k) % 2 === 0 ? one : two;
          const next = await asker.nextPairs(p.userId, id, 2);
          if (next.done) break;
          const o = next.offers[0]!;
          const pair = [o.left.clipId, o.right.clipId].sort().join('|');
          // The preloaded second offer comes back first next time: count each pair once.
          mine.add(pair);
          await (asker === one ? two : one).vote(p.userId, id, { offerId: o.offerId, answer: 'left' });
        }
      }),
    );
    const rows = await server.deps.db
      .selectFrom('judging_pairs')
      .select(['n_votes', 'n_open'])
      .where('campaign_id', '=', id)
      .execute();
    // Every judge stopped only when told done: every pair has its three votes, none more.
    expect(rows.map((r) => Number(r.n_votes))).toEqual(rows.map(() => 3));
    expect(rows.every((r) => Number(r.n_open) === 0)).toBe(true);
    const offers = await server.deps.db
      .selectFrom('judging_offers')
      .select(['judge_id', 'pair_id'])
      .where('campaign_id', '=', id)
      .execute();
    expect(new Set(offers.map((o) => `${o.judge_id}|${o.pair_id}`)).size).toBe(offers.length);
    expect(offers).toHaveLength(3 * pairs);
    expect([...seen.values()].reduce((n, s) => n + s.size, 0)).toBe(3 * pairs);
  });
});
