/**
 * The error catalogue on the wire: every error is `{ code, detail, requestId }` with the
 * catalogue's status and the request id echoed in X-Request-Id; bad input of every kind gets its
 * documented code; an unexpected fault is 500 without a stack; a dependency down is 503 with
 * Retry-After.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/errors.js';
import type { RouteModule } from '../src/http/app-deps.js';
import { ROUTE_MODULES } from '../src/http/routes/index.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

/** A route that fails the way a bug would, to see what the client gets. */
const faultyRoute: RouteModule = (app) => {
  app.get('/api/v1/test-fault', () => {
    throw new Error('secret internal detail at /srv/vesta/db.ts');
  });
};

let server: CoreTestServer;
let key: string;
let runId: string;

beforeAll(async () => {
  server = await startCoreServer({
    routes: [...ROUTE_MODULES, faultyRoute],
    env: { VESTA_BODY_LIMIT_BYTES: '2048' },
  });
  key = await server.key();
  runId = (
    await server.app.inject({ method: 'GET', url: '/api/v1/score', headers: { 'x-api-key': key } })
  ).json().runId;
});

afterAll(async () => {
  await server?.stop();
});

const uploadUrl = () => `/api/v1/score/${runId}/videos/upload-url`;
const good = { fileName: 'clip.mp4', contentType: 'video/mp4', prompt: 'a cat' };

function expectError(
  res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown },
  code: keyof typeof ERROR_CATALOGUE,
): void {
  const body = res.json() as { code: string; detail: string; requestId: string };
  expect(body.code).toBe(code);
  expect(res.statusCode).toBe(ERROR_CATALOGUE[code].status);
  expect(typeof body.detail).toBe('string');
  expect(body.requestId).toBe(res.headers['x-request-id']);
  expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId']);
}

describe('error responses', () => {
  it('unknown route: 404 not_found', async () => {
    expectError(
      await server.app.inject({ method: 'GET', url: '/api/v1/no-such-thing', headers: { 'x-api-key': key } }),
      'not_found',
    );
    expectError(await server.app.inject({ method: 'GET', url: '/nowhere' }), 'not_found');
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/nope',
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(res.headers['x-request-id']).toBe('trace-123');
    expect(res.json().requestId).toBe('trace-123');
    const odd = await server.app.inject({
      method: 'GET',
      url: '/api/v1/nope',
      headers: { 'x-request-id': 'a b\tc' },
    });
    expect(odd.headers['x-request-id']).not.toBe('a b\tc');
  });

  it('malformed JSON: 400 validation_failed', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: uploadUrl(),
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: '{"fileName": ',
    });
    expectError(res, 'validation_failed');
    expect(res.json().detail).toMatch(/JSON/);
  });

  it('wrong Content-Type: 415 unsupported_media_type', async () => {
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'video/mp4']) {
      expectError(
        await server.app.inject({
          method: 'POST',
          url: uploadUrl(),
          headers: { 'x-api-key': key, 'content-type': ct },
          payload: 'fileName=a',
        }),
        'unsupported_media_type',
      );
    }
  });

  it('a body over the limit: 413 payload_too_large', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: uploadUrl(),
      headers: { 'x-api-key': key },
      payload: { ...good, prompt: 'x'.repeat(4000) },
    });
    expectError(res, 'payload_too_large');
  });

  it('an extra field: 400 invalid_field naming it; nested extra fields too', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: uploadUrl(),
      headers: { 'x-api-key': key },
      payload: { ...good, colour: 'red' },
    });
    expectError(res, 'invalid_field');
    expect(res.json().detail).toContain('colour');
    const nested = await server.app.inject({
      method: 'POST',
      url: uploadUrl(),
      headers: { 'x-api-key': key },
      payload: { ...good, auxiliary: { object: 'cat', mood: 'calm' } },
    });
    expectError(nested, 'invalid_field');
    expect(nested.json().detail).toContain('mood');
    const reset = await server.app.inject({
      method: 'POST',
      url: '/api/v1/score/reset',
      headers: { 'x-api-key': key },
      payload: { force: true },
    });
    expectError(reset, 'invalid_field');
  });

  it('wrong types and shapes: 400 validation_failed', async () => {
    for (const payload of [
      { ...good, fileName: 42 },
      { ...good, prompt: ['a'] },
      { fileName: 'a.mp4' },
      [good],
      'just a string',
      17,
      null,
    ]) {
      const res = await server.app.inject({
        method: 'POST',
        url: uploadUrl(),
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code, JSON.stringify(payload)).toBe('validation_failed');
    }
  });

  it('an unexpected fault: 500 internal_error with no stack or internals in the body', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/test-fault',
      headers: { 'x-api-key': key },
    });
    expectError(res, 'internal_error');
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('/srv/');
    expect(res.body).not.toMatch(/\bat \S+:\d+/);
    // The log keeps the details for the operator.
    expect(server.logs.join('')).toContain('secret internal detail');
  });

  it('answers CORS with the headers browsers need to read', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/nope',
      headers: { origin: 'https://app.example.com' },
    });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const h of ['retry-after', 'ratelimit-remaining', 'x-request-id', 'idempotent-replayed'])
      expect(exposed).toContain(h);
    const pre = await server.app.inject({
      method: 'OPTIONS',
      url: uploadUrl(),
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,idempotency-key,content-type',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('x-api-key');
  });

  it('records X-Service-Source in metrics labels and request logs only', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/score',
      headers: { 'x-api-key': key, 'x-service-source': 'SDK' },
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.stringify(res.headers).toLowerCase()).not.toContain('"sdk"');
    expect(res.body).not.toContain('sdk');
    const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(
      /vesta_http_requests_total\{operation="getScoreSession",method="GET",status="200",source="sdk"\} \d+/,
    );
    expect(metrics).toContain('vesta_http_request_duration_seconds_bucket');
    // An unbounded label value is folded into "other".
    await server.app.inject({
      method: 'GET',
      url: '/api/v1/score',
      headers: { 'x-api-key': key, 'x-service-source': 'x'.repeat(200) },
    });
    expect((await server.app.inject({ method: 'GET', url: '/metrics' })).body).toContain('source="other"');
  });
});

describe('the documented catalogue', () => {
  it('docs/api.md lists every code with its status, and nothing else', () => {
    const doc = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d{3}) +\| `([A-Za-z_]+)` +\|/gm)].map((m) => [m[2], Number(m[1])]);
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status])),
    );
  });
});

describe('a dependency down', () => {
  it('is 503 upstream_unavailable with Retry-After, on requests and on /readyz', async () => {
    const ok = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().checks).toEqual({ database: 'ok', blobs: 'ok', queue: 'ok', engine: 'ok' });
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });

    const up = await server.app.inject({
      method: 'POST',
      url: uploadUrl(),
      headers: { 'x-api-key': key },
      payload: good,
    });
    const target = new URL(up.json().uploadUrl);
    // The blob directory disappears and a plain file takes its place: storage is unusable.
    const blobs = path.join(server.dataDir, 'blobs');
    rmSync(blobs, { recursive: true, force: true });
    writeFileSync(blobs, 'not a directory');
    try {
      const put = await server.app.inject({
        method: 'PUT',
        url: target.pathname + target.search,
        headers: { 'content-type': 'video/mp4' },
        payload: Buffer.alloc(1000, 1),
      });
      expectError(put, 'upstream_unavailable');
      expect(put.headers['retry-after']).toBe('5');
      const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
      expectError(ready, 'upstream_unavailable');
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.json().detail).toContain('blobs');
    } finally {
      rmSync(blobs, { force: true });
    }
  });
});
