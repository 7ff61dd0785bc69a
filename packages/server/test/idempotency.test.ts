/**
 * Idempotency-Key on state-changing POSTs: 24 h replay of the first 2xx with
 * `Idempotent-Replayed: true`; another body under the same key is 409 idempotency_mismatch; keys
 * are scoped per user and route; concurrent duplicates never execute twice; failures are not kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_TTL_MS,
  IdempotencyRecordRepository,
} from '../src/repositories/idempotency-records.repository.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  server = await startCoreServer();
  alice = await server.key();
  bob = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

const body = (n = 1) => ({
  fileName: `clip-${n}.mp4`,
  contentType: 'video/mp4',
  prompt: 'a red car at night',
});

async function session(key: string, kind: 'score' | 'rank' = 'score') {
  return (
    await server.app.inject({ method: 'GET', url: `/api/v1/${kind}`, headers: { 'x-api-key': key } })
  ).json();
}

function post(key: string, url: string, payload: unknown, idem?: string) {
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'x-api-key': key, ...(idem === undefined ? {} : { 'idempotency-key': idem }) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

describe('Idempotency-Key', () => {
  it('replays the first 2xx (status, body, Idempotent-Replayed) and executes once', async () => {
    await post(alice, '/api/v1/score/reset', undefined);
    const { runId } = await session(alice);
    const url = `/api/v1/score/${runId}/videos/upload-url`;
    const first = await post(alice, url, body(), 'replay-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(
      alice,
      url,
      { prompt: 'a red car at night', contentType: 'video/mp4', fileName: 'clip-1.mp4' },
      'replay-1',
    );
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers['content-type']).toContain('application/json');
    expect((await session(alice)).videos).toHaveLength(1);
  });

  it('accepts the quoted structured-field form of the key', async () => {
    const { runId } = await session(alice);
    const url = `/api/v1/score/${runId}/videos/upload-url`;
    const first = await post(alice, url, body(7), 'quoted-key');
    const quoted = await post(alice, url, body(7), '"quoted-key"');
    expect(quoted.headers['idempotent-replayed']).toBe('true');
    expect(quoted.json().videoId).toBe(first.json().videoId);
  });

  it('refuses the same key with another body: 409 idempotency_mismatch, nothing executed', async () => {
    const { runId } = await session(alice);
    const url = `/api/v1/score/${runId}/videos/upload-url`;
    const before = (await session(alice)).videos.length;
    expect((await post(alice, url, body(2), 'mismatch-1')).statusCode).toBe(201);
    const other = await post(alice, url, body(3), 'mismatch-1');
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('idempotency_mismatch');
    expect((await session(alice)).videos.length).toBe(before + 1);
  });

  it('scopes keys per user and per route', async () => {
    const a = await session(alice);
    const b = await session(bob);
    const ra = await post(alice, `/api/v1/score/${a.runId}/videos/upload-url`, body(), 'shared-key');
    const rb = await post(bob, `/api/v1/score/${b.runId}/videos/upload-url`, body(), 'shared-key');
    expect(rb.statusCode).toBe(201);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.json().videoId).not.toBe(ra.json().videoId);
    const rank = await session(alice, 'rank');
    const rr = await post(alice, `/api/v1/rank/${rank.runId}/videos/upload-url`, body(), 'shared-key');
    expect(rr.statusCode).toBe(201);
    expect(rr.headers['idempotent-replayed']).toBeUndefined();
  });

  it('never executes concurrent duplicates twice: one runs, the others replay it or get 409 conflict with Retry-After', async () => {
    await post(alice, '/api/v1/rank/reset', undefined);
    const { runId } = await session(alice, 'rank');
    const url = `/api/v1/rank/${runId}/videos/upload-url`;
    const results = await Promise.all(
      Array.from({ length: 12 }, () => post(alice, url, body(9), 'concurrent-1')),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    ).toBe(true);
    const created = results.filter((r) => r.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json().videoId)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      expect(r.json().code).toBe('conflict');
      expect(r.headers['retry-after']).toBe('1');
    }
    expect((await session(alice, 'rank')).videos).toHaveLength(1);
    // Concurrent resets under one key: one new session, not many.
    const resets = await Promise.all(
      Array.from({ length: 6 }, () => post(alice, '/api/v1/rank/reset', undefined, 'reset-once')),
    );
    const runIds = new Set(resets.filter((r) => r.statusCode === 200).map((r) => r.json().runId));
    expect(runIds.size).toBe(1);
    expect((await session(alice, 'rank')).runId).toBe([...runIds][0]);
  });

  it('does not keep failures: the same key runs again, and may then carry another body', async () => {
    const { runId } = await session(alice);
    const url = `/api/v1/score/${runId}/videos/upload-url`;
    const bad = { ...body(), fileName: 'dir/clip.mp4' };
    const r1 = await post(alice, url, bad, 'after-failure');
    const r2 = await post(alice, url, bad, 'after-failure');
    expect([r1.statusCode, r2.statusCode]).toEqual([400, 400]);
    expect(r2.headers['idempotent-replayed']).toBeUndefined();
    const fixed = await post(alice, url, body(4), 'after-failure');
    expect(fixed.statusCode).toBe(201);
  });

  it('runs a POST without the header normally (no replay protection)', async () => {
    const { runId } = await session(bob);
    const url = `/api/v1/score/${runId}/videos/upload-url`;
    const a = await post(bob, url, body(5));
    const b = await post(bob, url, body(5));
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().videoId).not.toBe(b.json().videoId);
  });

  it('rejects a malformed key with 400 validation_failed', async () => {
    const { runId } = await session(bob);
    const res = await post(bob, `/api/v1/score/${runId}/videos/upload-url`, body(), 'k'.repeat(256));
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    const spaced = await post(bob, `/api/v1/score/${runId}/videos/upload-url`, body(), 'has space');
    expect(spaced.json().code).toBe('validation_failed');
  });

  it('forgets keys after 24 hours', async () => {
    const { runId } = await session(bob);
    const url = `/api/v1/score/${runId}/videos/upload-url`;
    const first = await post(bob, url, body(6), 'old-key');
    await server.deps.db
      .updateTable('idempotency_records')
      .set({ created_at: Date.now() - IDEMPOTENCY_TTL_MS - 1000 })
      .where('key', '=', 'old-key')
      .execute();
    const later = await post(bob, url, body(6), 'old-key');
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().videoId).not.toBe(first.json().videoId);
    await server.deps.db
      .updateTable('idempotency_records')
      .set({ created_at: Date.now() - IDEMPOTENCY_TTL_MS - 1000 })
      .where('key', '=', 'old-key')
      .execute();
    expect(await new IdempotencyRecordRepository(server.deps.db).pruneExpired()).toBeGreaterThanOrEqual(1);
  });

  it('fences outcome writes: the first holder of a claim taken over after its lock lapsed changes nothing', async () => {
    const repo = new IdempotencyRecordRepository(server.deps.db);
    const { userId } = await server.deps.services.apiKeys.createKey('fence-user');
    const id = { userId, route: 'POST /test/fence', key: 'fence-1' };
    const t0 = Date.now();
    const first = await repo.claim(id, 'fp', { now: t0, lockMs: 1000 });
    expect(first.kind).toBe('claimed');
    const second = await repo.claim(id, 'fp', { now: t0 + 1500, lockMs: 1000 });
    expect(second.kind).toBe('claimed');
    if (first.kind !== 'claimed' || second.kind !== 'claimed') return;
    // The first holder's late writes: neither forgets nor completes the second holder's claim.
    await repo.forget({ ...id, lockedUntil: first.lockedUntil });
    await repo.complete(
      { ...id, lockedUntil: first.lockedUntil },
      { statusCode: 201, body: 'x', contentType: null },
    );
    expect(await repo.claim(id, 'fp', { now: t0 + 1600, lockMs: 1000 })).toEqual({ kind: 'in_progress' });
    await repo.complete(
      { ...id, lockedUntil: second.lockedUntil },
      { statusCode: 201, body: 'y', contentType: null },
    );
    // A completed record stays: a late forget of its own claim does not remove it.
    await repo.forget({ ...id, lockedUntil: second.lockedUntil });
    const replay = await repo.claim(id, 'fp', { now: t0 + 1700, lockMs: 1000 });
    expect(replay).toEqual({ kind: 'replay', response: { statusCode: 201, body: 'y', contentType: null } });
  });
});
