/**
 * The OpenAPI 3.1 document is generated from the route schemas, served at /api/v1/openapi.json
 * (without a key), and committed as openapi/openapi.json: this test fails when they differ
 * (run `npm run openapi` to regenerate).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors.js';
import { nameSharedSchemas } from '../src/http/openapi-components.js';
import { formatOpenApiDocument } from '../src/openapi.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

const COMMITTED = new URL('../../../openapi/openapi.json', import.meta.url);
let server: CoreTestServer;

beforeAll(async () => {
  server = await startCoreServer();
});
afterAll(async () => {
  await server?.stop();
});

interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string }>;
  description?: string;
}

describe('OpenAPI document', () => {
  it('is served without a key and equals the committed openapi/openapi.json', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const served = formatOpenApiDocument(res.json());
    expect(served, 'openapi/openapi.json is stale: run `npm run openapi`').toBe(
      readFileSync(COMMITTED, 'utf8'),
    );
  });

  it('is OpenAPI 3.1 with every endpoint of the spec, each with a unique operationId', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      openapi: string;
      info: { license: unknown };
      servers: Array<{ url: string; variables: { origin: { default: string } } }>;
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, unknown> };
    }>();
    expect(doc.openapi).toBe('3.1.0');
    // Redocly's recommended lint (#24 item 11): a licence and a server.
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.servers).toHaveLength(1);
    expect(doc.servers[0]!.variables.origin.default).toBe('http://localhost:8080');
    expect(doc.components.securitySchemes.ApiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.entries(methods).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })),
    );
    const keys = ops.map((o) => o.key);
    for (const k of [
      'GET /api/v1/score',
      'POST /api/v1/score/reset',
      'POST /api/v1/score/{id}/videos/upload-url',
      'POST /api/v1/score/{id}/videos/confirm-upload',
      'GET /api/v1/rank',
      'POST /api/v1/rank/reset',
      'POST /api/v1/rank/{id}/videos/upload-url',
      'POST /api/v1/rank/{id}/videos/confirm-upload',
      'GET /api/v1/rank/{id}/ranked',
      'POST /api/v1/bench',
      'GET /api/v1/bench',
      'GET /api/v1/bench/{id}',
      'POST /api/v1/bench/{id}/cancel',
      'DELETE /api/v1/bench/{id}',
      'GET /api/v1/bench/{id}/videos',
      'GET /api/v1/bench/{id}/csv',
      'GET /api/v1/bench/{id}/logs',
      'GET /api/v1/dimensions',
      'GET /api/v1/models',
    ]) {
      expect(keys).toContain(k);
    }
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // The upload PUT needs no key; idempotent POSTs document Idempotency-Key.
    const put = ops.find((o) => o.key === 'PUT /api/v1/uploads/{videoId}')!;
    expect(put.op.security).toEqual([]);
    const upload = ops.find((o) => o.key === 'POST /api/v1/score/{id}/videos/upload-url')!;
    expect(upload.op.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key')).toBe(true);
    expect(ops.find((o) => o.key === 'POST /api/v1/score/reset')!.op.description).toContain('409 conflict');
  });

  it('names its shared schemas (components + $ref) and enumerates the error catalogue', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }> };
    }>();
    for (const name of [
      'BenchRun',
      'BenchVideo',
      'ScoreSession',
      'RankSession',
      'Video',
      'Leaderboard',
      'RunnerTask',
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.components.schemas.ErrorBody?.properties?.code?.enum).toEqual(ERROR_CODES);
    const text = JSON.stringify(doc);
    // No titled schema is left inline; every $ref points at a component that exists.
    expect(JSON.stringify(doc.paths)).not.toContain('"title":');
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g))
      expect(doc.components.schemas[name!], name).toBeDefined();
  });

  it('documents the errors answered before a handler: 413/415 with a body, 414 with path parameters', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    }>();
    const missing: string[] = [];
    let withBody = 0;
    for (const [p, methods] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(methods)) {
        const want = [
          ...(op.requestBody !== undefined ? ['400', '413', '415'] : []),
          ...(p.includes('{') ? ['400', '414'] : []),
        ];
        if (op.requestBody !== undefined) withBody++;
        for (const status of want)
          if (!(status in op.responses)) missing.push(`${m.toUpperCase()} ${p}: ${status}`);
      }
    expect(withBody).toBeGreaterThan(15);
    expect(missing).toEqual([]);
    // Answered for real: a JSON route sent text, and a route that takes no body sent one.
    const key = await server.key();
    const text = await server.app.inject({
      method: 'POST',
      url: '/api/v1/runners',
      headers: { 'x-api-key': key, 'content-type': 'text/plain' },
      payload: 'name=r',
    });
    expect([text.statusCode, text.json<{ code: string }>().code]).toEqual([415, 'unsupported_media_type']);
    const extra = await server.app.inject({
      method: 'POST',
      url: '/api/v1/score/reset',
      headers: { 'x-api-key': key },
      payload: { all: true },
    });
    expect([extra.statusCode, extra.json<{ code: string }>().code]).toEqual([400, 'invalid_field']);
    expect(doc.paths['/api/v1/score/reset']!.post!.responses).toHaveProperty('400');
  });
});

describe('nameSharedSchemas', () => {
  const use = (schema: unknown) => ({
    get: { responses: { 200: { content: { 'application/json': { schema } } } } },
  });
  it('moves titled schemas to components, keeps a varying description next to the $ref', () => {
    const a = { title: 'Thing', type: 'object', properties: { id: { type: 'string' } }, description: 'one' };
    const out: {
      components?: unknown;
      paths: Record<'/a' | '/b' | '/c', ReturnType<typeof use>>;
    } = nameSharedSchemas({
      paths: {
        '/a': use(a),
        '/b': use({ ...a, description: 'two' }),
        '/c': use({ type: 'array', items: a }),
      },
    });
    expect(out.components).toEqual({
      schemas: { Thing: { type: 'object', properties: { id: { type: 'string' } } } },
    });
    expect(out.paths['/b'].get.responses[200].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Thing',
      description: 'two',
    });
  });
  it('refuses two different schemas under one title', () => {
    expect(() =>
      nameSharedSchemas({
        paths: {
          '/a': use({ title: 'Thing', type: 'string' }),
          '/b': use({ title: 'Thing', type: 'integer' }),
        },
      }),
    ).toThrow(/two different schemas are both titled Thing/);
  });
});
