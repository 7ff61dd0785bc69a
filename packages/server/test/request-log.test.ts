/**
 * Request logs without a pino child per request: each request writes one completion line with
 * its request id, operationId, status, duration and X-Service-Source (never the key), and lines
 * that route code or the error handler write through `request.log` carry the same request id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteModule } from '../src/http/app-deps.js';
import { ROUTE_MODULES } from '../src/http/routes/index.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

const loggingRoute: RouteModule = (app) => {
  app.get('/api/v1/test-log', (request) => {
    request.log.warn({ note: 'from the route' }, 'route line');
    request.log.debug('below the level: never written');
    return { ok: true };
  });
  app.get('/api/v1/test-log-fault', () => {
    throw new Error('log-test failure');
  });
};

let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  server = await startCoreServer({ routes: [...ROUTE_MODULES, loggingRoute] });
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

function linesOf(requestId: string): Record<string, unknown>[] {
  return server.logs
    .join('')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.requestId === requestId);
}

describe('request logs', () => {
  it('one completion line per request with the fields operators need, never the key', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/score',
      headers: { 'x-api-key': key, 'x-service-source': 'CLI', 'x-request-id': 'log-test-1' },
    });
    expect(res.statusCode).toBe(200);
    const lines = linesOf('log-test-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      level: 30,
      requestId: 'log-test-1',
      operation: 'getScoreSession',
      method: 'GET',
      url: '/api/v1/score',
      statusCode: 200,
      source: 'cli',
    });
    expect(typeof lines[0]!.durationMs).toBe('number');
    expect(typeof lines[0]!.userId).toBe('string');
    expect(server.logs.join('')).not.toContain(key);
  });

  it('lines written through request.log carry the request id', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/test-log',
      headers: { 'x-api-key': key, 'x-request-id': 'log-test-2' },
    });
    expect(res.statusCode).toBe(200);
    const lines = linesOf('log-test-2');
    expect(lines.map((l) => l.msg)).toEqual(['route line', 'request completed']);
    expect(lines[0]).toMatchObject({ level: 40, note: 'from the route' });

    const fault = await server.app.inject({
      method: 'GET',
      url: '/api/v1/test-log-fault',
      headers: { 'x-api-key': key, 'x-request-id': 'log-test-3' },
    });
    expect(fault.statusCode).toBe(500);
    const faultLines = linesOf('log-test-3');
    expect(faultLines.map((l) => l.msg)).toEqual(['request failed', 'request completed']);
    expect(faultLines[0]).toMatchObject({ level: 50, code: 'internal_error' });
    expect(faultLines[1]).toMatchObject({ statusCode: 500, operation: '/api/v1/test-log-fault' });
  });

  it('a redacted upload token never reaches the log', async () => {
    await server.app.inject({ method: 'PUT', url: '/api/v1/uploads/nope?token=secret-token-value' });
    expect(server.logs.join('')).not.toContain('secret-token-value');
    expect(server.logs.join('')).toContain('token=[redacted]');
  });
});
