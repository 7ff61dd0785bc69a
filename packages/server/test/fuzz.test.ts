/**
 * A bounded, seeded fuzz of the whole API: every operation of the OpenAPI document, called with
 * malformed bodies (deep nesting, huge arrays, long strings, wrong types, bytes that are not JSON),
 * odd headers (keys, Idempotency-Key, Content-Type, X-Request-Id), odd path parameters and query
 * strings. No answer may be a 5xx, every error must be a catalogue body `{ code, detail,
 * requestId }` with the catalogue's status, and no validation failure may show the validator's
 * own text, and the operation's own method answers only with statuses its OpenAPI lists. Seed: VESTA_FUZZ_SEED (default fixed); count per
 * operation: VESTA_FUZZ_CASES (default 40).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/errors.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

const SEED = Number(process.env.VESTA_FUZZ_SEED ?? 20261125);
const CASES = Number(process.env.VESTA_FUZZ_CASES ?? 40);

/** mulberry32: a small seeded generator, so that a failure can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The validator's own phrasing (and the words fallback for a rule without words of its own). */
const VALIDATOR_TEXT =
  /\b(body|querystring|params|headers)\/|must not have (fewer|more) than|must be (string|integer|number|object|array|boolean|null)\b|must match|must be equal to|must have required|anyOf| is not valid$/;

let server: CoreTestServer;
let key: string;
const known: string[] = [];

interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: string }>;
  hasBody: boolean;
  /** The statuses the document lists for the operation. */
  documented: Set<string>;
}
let operations: Operation[] = [];

beforeAll(async () => {
  server = await startCoreServer({ env: { VESTA_BODY_LIMIT_BYTES: String(1024 * 1024) } });
  key = await server.key();
  const other = await server.key();
  const inject = (method: 'GET' | 'POST', url: string, k: string, payload?: Record<string, unknown>) =>
    server.app.inject({
      method,
      url,
      headers: { 'x-api-key': k },
      ...(payload === undefined ? {} : { payload }),
    });
  known.push((await inject('GET', '/api/v1/score', key)).json<{ runId: string }>().runId);
  known.push((await inject('GET', '/api/v1/rank', key)).json<{ runId: string }>().runId);
  // Another user's runner: its id is real, and the fuzzing user may not use it (a claim answers at once).
  const runner = await inject('POST', '/api/v1/runners', other, {
    name: 'fuzz-runner',
    models: ['fuzz-model'],
  });
  known.push(runner.json<{ id: string }>().id);
  const doc = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Array<{ name: string; in: string }>;
          requestBody?: unknown;
          responses?: Record<string, unknown>;
        }
      >
    >;
  }>();
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: op.parameters ?? [],
      hasBody: op.requestBody !== undefined,
      documented: new Set(Object.keys(op.responses ?? {})),
    })),
  );
});

afterAll(async () => {
  await server?.stop();
});

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function nested(r: Rand, depth: number): string {
  const open = r() < 0.5 ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

function randomJson(r: Rand, depth = 0): unknown {
  const k = r();
  if (depth > 3 || k < 0.3)
    return pick(r, [
      0,
      -1,
      1e308,
      2 ** 53 + 1,
      0.5,
      true,
      false,
      null,
      '',
      'x',
      '\u0000',
      '☃',
      'a'.repeat(300),
    ]);
  if (k < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth + 1));
  const o: Record<string, unknown> = {};
  const names = [
    'name',
    'models',
    'dimensions',
    'fileName',
    'contentType',
    'prompt',
    'videoId',
    'waitSeconds',
    'leaseId',
    'logs',
    'error',
    'retryable',
    'auxiliary',
    'force',
    '__proto__',
    'constructor',
    'x',
  ];
  for (let i = Math.floor(r() * 5); i > 0; i--) o[pick(r, names)] = randomJson(r, depth + 1);
  return o;
}

function randomBody(r: Rand): string | Buffer | undefined {
  switch (Math.floor(r() * 12)) {
    case 0:
      return undefined;
    case 1:
      return nested(r, pick(r, [31, 32, 33, 100, 10_000, 100_000]));
    case 2:
      return `[${Array.from({ length: pick(r, [1000, 100_000, 200_000]) }, () => '1').join(',')}]`;
    case 3:
      return JSON.stringify({
        name: 'x'.repeat(pick(r, [129, 10_000, 500_000])),
        models: ['m'],
        dimensions: ['x'.repeat(1000)],
      });
    case 4:
      return JSON.stringify({
        models: Array.from({ length: pick(r, [100, 10_000, 50_000]) }, (_, i) => `m${i}`),
      });
    case 5:
      return Buffer.from(Array.from({ length: 64 }, () => Math.floor(r() * 256)));
    case 6:
      return pick(r, [
        '{',
        '}',
        '[1,]',
        '{"a":1,}',
        'nul',
        '"unterminated',
        '1e99999',
        '{"a":"\\ud800"}',
        '\u0000',
      ]);
    case 7:
      return JSON.stringify({
        ...{ fileName: 'a.mp4', contentType: 'video/mp4', prompt: 'p' },
        extra: randomJson(r),
      });
    default:
      return JSON.stringify(randomJson(r));
  }
}

function randomParam(r: Rand): string {
  return pick(r, [
    ...known,
    ...known,
    'x',
    'a'.repeat(64),
    'a'.repeat(65),
    'a'.repeat(100),
    'a'.repeat(101),
    'a'.repeat(5000),
    '%zz',
    '%',
    '%00',
    '%2F',
    '..',
    '%2e%2e',
    encodeURIComponent('é☃'),
    encodeURIComponent("'; DROP TABLE videos;--"),
    String(Math.floor(r() * 1e9)),
  ]);
}

function randomQuery(r: Rand, op: Operation): string {
  const parts: string[] = [];
  for (const p of op.params.filter((x) => x.in === 'query')) {
    if (r() < 0.3) continue;
    parts.push(
      `${p.name}=${pick(r, ['1', '0', '-1', 'abc', '1e99', '2.5', '', 'a'.repeat(3000), '%zz', '100000', '1&' + p.name + '=2'])}`,
    );
  }
  if (r() < 0.2) parts.push(pick(r, ['a[b][c]=1', 'x=%00', '__proto__=1', 'constructor[prototype]=1']));
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function randomHeaders(r: Rand, op: Operation): Record<string, string> {
  const h: Record<string, string> = {};
  const k = r();
  if (k < 0.7) h['x-api-key'] = key;
  else if (k < 0.85) h['x-api-key'] = pick(r, ['', 'vk_x', 'a'.repeat(5000), key.slice(0, -1), `${key} `]);
  if (op.hasBody || r() < 0.2)
    h['content-type'] =
      r() < 0.8
        ? 'application/json'
        : pick(r, [
            'text/plain',
            'application/json; charset=latin1',
            'video/mp4',
            'multipart/form-data',
            'application/json, text/plain',
            '*/*',
          ]);
  if (r() < 0.2) h['idempotency-key'] = pick(r, ['', 'k', '"quoted"', 'a'.repeat(300), 'has space', 'ü']);
  if (r() < 0.1) h['x-request-id'] = pick(r, ['', 'a'.repeat(200), 'ok-id', 'bad id']);
  if (r() < 0.1) h['x-service-source'] = 'x'.repeat(100);
  return h;
}

describe('fuzzing every operation of the OpenAPI document', () => {
  it(`no 5xx and only catalogue bodies (seed ${SEED}, ${CASES} cases per operation)`, async () => {
    expect(operations.length).toBeGreaterThan(20);
    const r = prng(SEED);
    const problems: string[] = [];
    let sent = 0;
    for (const op of operations) {
      for (let i = 0; i < CASES; i++) {
        const path = op.path.replace(/\{[^}]+\}/g, () => randomParam(r)) + randomQuery(r, op);
        const method = r() < 0.05 ? pick(r, ['PATCH', 'OPTIONS', 'HEAD', 'DELETE']) : op.method;
        const payload = op.hasBody || r() < 0.2 ? randomBody(r) : undefined;
        const res = await server.app.inject({
          method: method as 'GET',
          url: path,
          headers: randomHeaders(r, op),
          ...(payload === undefined ? {} : { payload }),
        });
        sent++;
        const where = `${method} ${path.slice(0, 120)} (case ${i}, seed ${SEED})`;
        // The operation's own method answers only with statuses its OpenAPI lists.
        if (method === op.method && !op.documented.has(String(res.statusCode)))
          problems.push(`${where}: ${res.statusCode} is not documented for ${op.method} ${op.path}`);
        if (res.statusCode >= 500) {
          problems.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          continue;
        }
        if (res.statusCode < 400 || method === 'HEAD') continue;
        let body: Record<string, unknown>;
        try {
          body = res.json();
        } catch {
          problems.push(`${where}: ${res.statusCode} non-JSON body ${res.body.slice(0, 100)}`);
          continue;
        }
        const code = body.code as keyof typeof ERROR_CATALOGUE;
        if (
          Object.keys(body).sort().join() !== 'code,detail,requestId' ||
          ERROR_CATALOGUE[code]?.status !== res.statusCode ||
          body.requestId !== res.headers['x-request-id']
        )
          problems.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.body.length > 2000)
          problems.push(`${where}: an error body of ${res.body.length} bytes echoes input`);
        // Validation failures are written in words, never in the validator's own phrasing.
        if (
          (code === 'validation_failed' || code === 'invalid_field') &&
          VALIDATOR_TEXT.test(String(body.detail))
        )
          problems.push(`${where}: validator text in ${String(body.detail).slice(0, 200)}`);
      }
    }
    expect(sent).toBe(operations.length * CASES);
    expect(problems.slice(0, 20)).toEqual([]);
  }, 240_000);
});
