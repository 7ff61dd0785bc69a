// Transport behaviour of the SDK core (retries, Retry-After, idempotency keys, timeouts, aborts)
// against a small local HTTP server that misbehaves on purpose; the Vesta server itself is
// driven in sdk.e2e.test.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiTimeoutError,
  InternalError,
  MissingApiKeyError,
  NotFoundError,
  RequestAbortedError,
  Vesta,
} from '../src/index.js';
import { backoffDelay, parseRetryAfter } from '../src/core/backoff.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  at: number;
}

let server: Server | undefined;
afterEach(async () => {
  if (server) await new Promise<void>((r) => server!.close(() => r()));
  server = undefined;
});

async function serve(handler: Handler): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
      handler(req, res, body, seen.length);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const fast = { initialDelayMs: 5, maxDelayMs: 20 };
const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('SDK transport', () => {
  it('names the environment variable when no key is configured', () => {
    expect(() => new Vesta({ apiKeyEnv: 'VESTA_TEST_UNSET_KEY' })).toThrow(MissingApiKeyError);
    expect(() => new Vesta({ apiKeyEnv: 'VESTA_TEST_UNSET_KEY' })).toThrow(/VESTA_TEST_UNSET_KEY/);
  });

  it('keeps the key out of JSON and inspection of the client', () => {
    const vesta = new Vesta({ apiKey: 'vk_secret_value_123' });
    expect(JSON.stringify(vesta)).not.toContain('vk_secret_value_123');
    expect(inspect(vesta, { depth: 20, showHidden: true })).not.toContain('vk_secret_value_123');
  });

  it('retries 5xx with one Idempotency-Key reused across attempts, then succeeds', async () => {
    const { baseUrl, seen } = await serve((_req, res, _b, n) =>
      n < 3
        ? json(res, 500, { code: 'internal_error', detail: 'boom', requestId: `r${n}` })
        : json(res, 200, { runId: 'run_1', videos: [] }),
    );
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast, source: 'test-suite' });
    const session = await vesta.score.reset();
    expect(session.runId).toBe('run_1');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]!.headers['x-api-key']).toBe('k');
    expect(seen[0]!.headers['x-service-source']).toBe('test-suite');
  });

  it('uses a fresh Idempotency-Key for each call', async () => {
    const { baseUrl, seen } = await serve((_req, res) => json(res, 200, { runId: 'r', videos: [] }));
    const vesta = new Vesta({ apiKey: 'k', baseUrl });
    await vesta.score.reset();
    await vesta.score.reset();
    expect(seen[0]!.headers['idempotency-key']).not.toBe(seen[1]!.headers['idempotency-key']);
    expect(seen[0]!.headers['x-service-source']).toBe('sdk');
  });

  it('gives up after maxRetries with the typed error, request id and code', async () => {
    const { baseUrl, seen } = await serve((_req, res) =>
      json(res, 500, { code: 'internal_error', detail: 'still broken', requestId: 'req-9' }),
    );
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast, maxRetries: 1 });
    const err = await vesta.dimensions.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect(err).toMatchObject({
      status: 500,
      code: 'internal_error',
      detail: 'still broken',
      requestId: 'req-9',
    });
    expect(seen).toHaveLength(2);
  });

  it('does not retry 4xx and maps codes to classes (request id from the header when the body lacks it)', async () => {
    const { baseUrl, seen } = await serve((_req, res) =>
      json(res, 404, { code: 'not_found', detail: 'no such run' }, { 'x-request-id': 'hdr-1' }),
    );
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast });
    const err = await vesta.bench.get('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ requestId: 'hdr-1', code: 'not_found' });
    expect(seen).toHaveLength(1);
  });

  it('honours Retry-After on 429', async () => {
    const { baseUrl, seen } = await serve((_req, res, _b, n) =>
      n === 1
        ? json(res, 429, { code: 'rate_limited', detail: 'slow down' }, { 'retry-after': '1' })
        : json(res, 200, { items: [] }),
    );
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast });
    await vesta.models.list();
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries a 409 that carries Retry-After (duplicate still in progress) with the same key', async () => {
    const { baseUrl, seen } = await serve((_req, res, _b, n) =>
      n === 1
        ? json(res, 409, { code: 'conflict', detail: 'in progress' }, { 'retry-after': '0' })
        : json(res, 201, { id: 'bench_1' }),
    );
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast });
    expect((await vesta.bench.create({ name: 'n', modelId: 'm', dimensions: ['d'] })).id).toBe('bench_1');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
  });

  it('keeps a runner registering through 409s with Retry-After beyond the client retries (a key still held after a database restart)', async () => {
    const { baseUrl, seen } = await serve((req, res, _b, n) => {
      if (req.url === '/api/v1/runners' && n <= 4)
        json(res, 409, { code: 'conflict', detail: 'in progress' }, { 'retry-after': '0' });
      else if (req.url === '/api/v1/runners')
        json(res, 201, { id: 'runner_1', name: 'r', models: ['m'], maxConcurrency: 1 });
      else res.writeHead(204).end();
    });
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast, maxRetries: 1 });
    const runner = vesta.createRunner({
      name: 'r',
      models: ['m'],
      claimWaitSeconds: 0,
      generate: () => Promise.reject(new Error('no task is offered')),
    });
    expect((await runner.ready).id).toBe('runner_1');
    await runner.stop({ graceMs: 0 });
    const registrations = seen.filter((r) => r.url === '/api/v1/runners');
    expect(registrations).toHaveLength(5);
    expect(new Set(registrations.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });

  it('times out a response whose body stalls (the timeout covers the body read)', async () => {
    const { baseUrl, seen } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": [');
      // never ends
    });
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast, timeoutMs: 150, maxRetries: 1 });
    const err = await vesta.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(seen).toHaveLength(2);
    server!.closeAllConnections();
  });

  it('reports an unreachable server with its address after retrying', async () => {
    const { baseUrl } = await serve(() => undefined);
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const vesta = new Vesta({ apiKey: 'k', baseUrl, backoff: fast, maxRetries: 2 });
    const err = await vesta.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as Error).message).toContain(baseUrl);
    expect((err as Error).message).toMatch(/3 attempts/);
  });

  it('aborts while waiting between retries', async () => {
    const { baseUrl, seen } = await serve((_req, res) =>
      json(res, 503, { code: 'upstream_unavailable', detail: 'db down' }, { 'retry-after': '30' }),
    );
    const vesta = new Vesta({ apiKey: 'k', baseUrl });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const err = await vesta.models.list({ signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(seen).toHaveLength(1);
  });

  it('walks every page of bench runs with the async iterator', async () => {
    const runs = Array.from({ length: 5 }, (_, i) => ({ id: `run_${i}`, name: `n${i}`, status: 'queued' }));
    const { baseUrl } = await serve((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const page = Number(url.searchParams.get('page'));
      const limit = Number(url.searchParams.get('limit'));
      json(res, 200, {
        items: runs.slice((page - 1) * limit, page * limit),
        page,
        limit,
        total: runs.length,
        hasMore: page * limit < runs.length,
      });
    });
    const vesta = new Vesta({ apiKey: 'k', baseUrl });
    const ids: string[] = [];
    for await (const run of vesta.bench.list({ limit: 2 })) ids.push(run.id);
    expect(ids).toEqual(runs.map((r) => r.id));
  });
});

describe('backoff', () => {
  it('grows exponentially, is capped, and jitters down by at most 25 %', () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 8_000 };
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
    expect(backoffDelay(3, policy, () => 0)).toBe(4_000);
    expect(backoffDelay(10, policy, () => 0)).toBe(8_000);
    expect(backoffDelay(1, policy, () => 0.999999)).toBeGreaterThanOrEqual(750);
    const samples = new Set(Array.from({ length: 20 }, () => backoffDelay(2, policy)));
    expect(samples.size).toBeGreaterThan(1);
  });

  it('parses Retry-After as seconds or an HTTP date, capped at 60 s', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter('600')).toBe(60_000);
    expect(parseRetryAfter(new Date(Date.now() + 5_000).toUTCString())).toBeGreaterThan(3_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
