/**
 * Optional rate limits against real servers: off by default (no fields, no refusals); when on,
 * every response carries the structured RateLimit-Policy / RateLimit fields, a refusal is 429
 * `rate_limited` with Retry-After, buckets refill, and two API processes on one database (on
 * PostgreSQL two data directories on one schema; on SQLite one data directory) draw on the same
 * buckets — exactly, under concurrent requests — and share the sign-in lockout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/errors.js';
import { loadConfig } from '../src/config.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { TEST_DIALECT, dropTestDatabase, testDatabaseUrl } from './helpers/test-database.js';

const shared = mkdtempSync(path.join(os.tmpdir(), 'vesta-rate-limit-'));
const other = mkdtempSync(path.join(os.tmpdir(), 'vesta-rate-limit-other-'));
const LIMITS = { VESTA_RATE_LIMIT_PER_KEY: '4/60', VESTA_RATE_LIMIT_PER_IP: '100/1d' };
let plain: CoreTestServer;
let a: CoreTestServer;
let b: CoreTestServer;

beforeAll(async () => {
  plain = await startCoreServer();
  a = await startCoreServer({ dataDir: shared, listen: true, env: LIMITS });
  const url = await testDatabaseUrl(shared);
  b =
    TEST_DIALECT === 'postgres' && url !== null
      ? await startCoreServer({
          dataDir: other,
          listen: true,
          env: { ...LIMITS, VESTA_DATABASE_URL: url },
        })
      : await startCoreServer({ dataDir: shared, listen: true, env: LIMITS });
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await plain?.stop();
  rmSync(shared, { recursive: true, force: true });
  rmSync(other, { recursive: true, force: true });
  await dropTestDatabase(shared);
});

let ips = 0;
/** A fresh client address, so that each test has its own per-IP bucket. */
const freshIp = (): string => `10.77.${Math.floor(++ips / 250)}.${(ips % 250) + 1}`;

/** The items of a structured-field list such as `"ip";r=3;t=1, "key";r=2;t=15`. */
function items(field: string | undefined): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const part of (field ?? '').split(',').map((s) => s.trim())) {
    const m = /^"([a-z]+)"((?:;[a-z]+=\d+)+)$/.exec(part);
    expect(m, `not an sf-list item with integer parameters: ${part}`).not.toBeNull();
    out[m![1]!] = Object.fromEntries(
      m![2]!
        .slice(1)
        .split(';')
        .map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])]),
    );
  }
  return out;
}

describe('configuration', () => {
  it('is off by default and parses <requests>/<window>', () => {
    const dir = os.tmpdir();
    expect(loadConfig({}, dir).rateLimits).toEqual({ perKey: null, perIp: null });
    expect(
      loadConfig({ VESTA_RATE_LIMIT_PER_KEY: '600/1m', VESTA_RATE_LIMIT_PER_IP: '50/10' }, dir).rateLimits,
    ).toEqual({ perKey: { quota: 600, windowSeconds: 60 }, perIp: { quota: 50, windowSeconds: 10 } });
    expect(() => loadConfig({ VESTA_RATE_LIMIT_PER_KEY: 'lots' }, dir)).toThrow(/VESTA_RATE_LIMIT_PER_KEY/);
  });
});

describe(`rate limits (${TEST_DIALECT})`, () => {
  it('are off by default: no fields, no refusals', async () => {
    const key = await plain.key();
    for (let i = 0; i < 8; i++) {
      const res = await plain.app.inject({ url: '/api/v1/dimensions', headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
  });

  it('put the fields on every response, count per key, and refuse with 429 rate_limited + Retry-After', async () => {
    const key = await a.key();
    const ip = freshIp();
    const get = (url: string, k: string | null = key) =>
      a.app.inject({ url, remoteAddress: ip, headers: k === null ? {} : { 'x-api-key': k } });

    const first = await get('/api/v1/dimensions');
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"ip";q=100;w=86400, "key";q=4;w=60');
    expect(items(first.headers.ratelimit as string)).toEqual({
      ip: { r: 99, t: 864 },
      key: { r: 3, t: 15 },
    });
    // An error answer and an unauthenticated one carry them too (the latter only the IP's item).
    const missing = await get('/api/v1/bench/no-such-run');
    expect(missing.statusCode).toBe(404);
    expect(items(missing.headers.ratelimit as string).key!.r).toBe(2);
    const anonymous = await get('/api/v1/dimensions', null);
    expect(anonymous.statusCode).toBe(401);
    expect(Object.keys(items(anonymous.headers.ratelimit as string))).toEqual(['ip']);
    expect(anonymous.headers['ratelimit-policy']).toBeDefined();

    expect((await get('/api/v1/dimensions')).statusCode).toBe(200);
    expect((await get('/api/v1/dimensions')).statusCode).toBe(200);
    const refused = await get('/api/v1/dimensions');
    expect(refused.statusCode).toBe(429);
    const body = refused.json<{ code: string; detail: string; requestId: string }>();
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId']);
    expect(body.code).toBe('rate_limited');
    expect(ERROR_CATALOGUE.rate_limited.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15);
    const item = items(refused.headers.ratelimit as string).key!;
    expect(item.r).toBe(0);
    // Retry-After never points earlier than the field's t.
    expect(retryAfter).toBeGreaterThanOrEqual(item.t!);
    // A refusal takes nothing: the next one waits no longer.
    const again = await get('/api/v1/dimensions');
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(retryAfter);

    // Another key from the same address is not affected.
    expect((await get('/api/v1/dimensions', await a.key())).statusCode).toBe(200);
    // Probes are not counted and still carry the policy.
    const health = await a.app.inject({ url: '/healthz', remoteAddress: ip });
    expect(health.statusCode).toBe(200);
    expect(health.headers['ratelimit-policy']).toBeDefined();
  });

  it('count every request of one client address, keys or not', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++)
      statuses.push((await a.app.inject({ url: '/api/v1/dimensions', remoteAddress: ip })).statusCode);
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses[100]).toBe(429);
    // Another address is not affected.
    expect((await a.app.inject({ url: '/api/v1/dimensions', remoteAddress: freshIp() })).statusCode).toBe(
      401,
    );
  });

  it('refill: a refused key is served again once Retry-After has passed', async () => {
    // Two requests per 4 s: one more every 2 s.
    const fast = await startCoreServer({ env: { VESTA_RATE_LIMIT_PER_KEY: '2/4' } });
    try {
      const key = await fast.key();
      const get = () => fast.app.inject({ url: '/api/v1/dimensions', headers: { 'x-api-key': key } });
      const statuses: number[] = [];
      let refused: Awaited<ReturnType<typeof get>> | undefined;
      // The burst is 2; on a slow machine a unit may come back meanwhile, so allow one more.
      while (refused === undefined && statuses.length < 4) {
        const res = await get();
        statuses.push(res.statusCode);
        if (res.statusCode === 429) refused = res;
      }
      expect(statuses.slice(0, 2)).toEqual([200, 200]);
      expect(refused, String(statuses)).toBeDefined();
      const wait = Number(refused!.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, wait * 1000 + 100));
      expect((await get()).statusCode).toBe(200);
    } finally {
      await fast.stop();
    }
  });

  it('hold across two API processes on one database, exactly under concurrent requests', async () => {
    const key = await a.key();
    // 40 requests at once, half to each process, on a bucket of 4: exactly 4 are served.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${(i % 2 === 0 ? a : b).base}/api/v1/dimensions`, { headers: { 'x-api-key': key } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(36);
    for (const r of results) {
      expect(r.headers.get('ratelimit-policy')).toBe('"ip";q=100;w=86400, "key";q=4;w=60');
      await r.arrayBuffer();
    }
  });

  it('share the sign-in lockout across two API processes', async () => {
    const email = `lock-${Date.now()}@example.com`;
    const signIn = (server: CoreTestServer) =>
      fetch(`${server.base}/api/v1/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'wrong password!' }),
      });
    // The first five failures are free (three on A, two on B); the sixth locks the account.
    for (const server of [a, a, a, b, b, b]) expect((await signIn(server)).status).toBe(401);
    const onA = await signIn(a);
    const onB = await signIn(b);
    expect(onA.status).toBe(429);
    expect(onB.status).toBe(429);
    expect(((await onB.json()) as { code: string }).code).toBe('rate_limited');
    expect(Number(onB.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
