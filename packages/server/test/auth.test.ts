/**
 * Authentication on every /api/v1 route, walked generically over the registered routes (Score,
 * Rank, Bench, Discovery alike): no key and a bad key are 401 `unauthorized`; another user's key
 * on a route naming a resource is 403 `forbidden`. Keys are stored hashed, revocable, and never
 * appear in any log line.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clip, startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { seedRun } from './helpers/bench-seed.js';
import { sampleOf } from './helpers/sample-body.js';
import { sql } from 'kysely';
import { TEST_DIALECT } from './helpers/test-database.js';

let server: CoreTestServer;
let alice: string;
let bob: string;
const keysSeen: string[] = [];

/** Creates a resource of each kind owned by the caller and returns its id. */
const FACTORIES: Record<string, (key: string) => Promise<string>> = {
  'score-session': async (key) =>
    (await server.app.inject({ method: 'GET', url: '/api/v1/score', headers: { 'x-api-key': key } })).json()
      .runId,
  'rank-session': async (key) =>
    (await server.app.inject({ method: 'GET', url: '/api/v1/rank', headers: { 'x-api-key': key } })).json()
      .runId,
  'bench-run': async (key) => {
    await server.deps.bench.models.upsert({
      id: 'walker-model',
      name: 'Walker model',
      description: 'A model for the auth walker.',
    });
    const dimension = server.deps.engine
      .dimensions()
      .find((d) => d.workflows.includes('bench') && d.defaultMethod !== null)!.id;
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/bench',
      headers: { 'x-api-key': key },
      payload: { name: 'walker', dimensions: [dimension], model_id: 'walker-model' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  runner: async (key) => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/runners',
      headers: { 'x-api-key': key },
      payload: { name: 'walker-runner', models: ['walker-runner-model'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // A model private to the caller: declared by their runner (services/model-keys.ts).
  model: async (key) => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/runners',
      headers: { 'x-api-key': key },
      payload: { name: 'walker-model-runner', models: ['walker-private-model'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return 'walker-private-model';
  },
  // A clip of the caller's Score session (its upload URL minted: the video exists).
  video: async (key) => {
    const headers = { 'x-api-key': key };
    const runId = (await server.app.inject({ method: 'GET', url: '/api/v1/score', headers })).json().runId;
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/score/${runId}/videos/upload-url`,
      headers,
      payload: { fileName: 'walker.mp4', contentType: 'video/mp4', prompt: 'a walker' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().videoId;
  },
  // A judging campaign of the caller's, from two seeded runs of theirs (one prompt, one clip each).
  'judging-campaign': async (key) => {
    const { user_id: userId } = await server.deps.db
      .selectFrom('api_keys')
      .select('user_id')
      .where('prefix', '=', key.slice(0, 12))
      .executeTakeFirstOrThrow();
    const runs = [`walker-judge-a-${userId}`, `walker-judge-b-${userId}`];
    for (const id of runs)
      await seedRun(server, {
        id,
        userId,
        model: 'vesta-demo',
        clips: [{ prompt: 'walker-01', group: 'walker', sample: 0, scores: { aesthetic_quality: 0.5 } }],
      });
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/judging/campaigns',
      headers: { 'x-api-key': key },
      payload: { name: 'walker', benchRunIds: runs },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // A task the caller's runner has claimed (a run of a model only that runner serves).
  'runner-task': async (key) => {
    const headers = { 'x-api-key': key };
    const runner = await server.app.inject({
      method: 'POST',
      url: '/api/v1/runners',
      headers,
      payload: { name: 'walker-task-runner', models: ['walker-task-model'] },
    });
    const dimension = server.deps.engine
      .dimensions()
      .find((d) => d.workflows.includes('bench') && d.defaultMethod !== null)!.id;
    const run = await server.app.inject({
      method: 'POST',
      url: '/api/v1/bench',
      headers,
      payload: {
        name: 'walker',
        dimensions: [dimension],
        model_id: 'walker-task-model',
        samples_per_prompt: 1,
        prompts_per_dimension: 1,
      },
    });
    expect(run.statusCode, run.body).toBe(201);
    const claim = await server.app.inject({
      method: 'POST',
      url: `/api/v1/runners/${runner.json().id}/claim`,
      headers,
      payload: { waitSeconds: 0 },
    });
    expect(claim.statusCode, claim.body).toBe(200);
    return claim.json().task.id;
  },
};

/** Catalogue entries every user may read (they name no user's resource). */
const PUBLIC_RESOURCES = new Set(['dimension']);
/**
 * Resources whose existence another user must not learn (docs/security.md): another user's id
 * answers exactly as an id that does not exist (404 not_found), not 403.
 */
const HIDDEN_RESOURCES = new Set(['video', 'model']);

/** The resource a route's first path parameter names: declared in config, or by its area. */
function resourceOf(url: string, declared: string | undefined): string {
  if (declared) return declared;
  const area = url.split('/')[3];
  return (
    { score: 'score-session', rank: 'rank-session', bench: 'bench-run' }[area ?? ''] ??
    `unknown resource for ${url}`
  );
}

function apiRoutes() {
  return server.app.vestaRoutes.filter(
    (r) =>
      r.url.startsWith('/api/v1') && r.config.auth !== false && r.method !== 'HEAD' && r.method !== 'OPTIONS',
  );
}

beforeAll(async () => {
  server = await startCoreServer();
  alice = await server.key('walker-alice');
  bob = await server.key('walker-bob');
  keysSeen.push(alice, bob);
});

afterAll(async () => {
  await server?.stop();
});

describe('authentication on every /api/v1 route', () => {
  it('covers the routes of every area', () => {
    const urls = apiRoutes().map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'GET /api/v1/score',
      'POST /api/v1/rank/:id/videos/upload-url',
      'GET /api/v1/rank/:id/ranked',
      'GET /api/v1/bench/:id',
      'GET /api/v1/dimensions',
    ]) {
      expect(urls).toContain(expected);
    }
  });

  it('answers 401 unauthorized without a key and with a bad key, on every route', async () => {
    const revoked = await server.deps.services.apiKeys.createKey('walker-revoked');
    keysSeen.push(revoked.key);
    expect(await server.deps.services.apiKeys.revokeKey(revoked.prefix)).toBe(true);
    const badKeys = [
      undefined,
      '',
      'not-a-key',
      `${alice.slice(0, -1)}${alice.endsWith('A') ? 'B' : 'A'}`,
      revoked.key,
    ];
    for (const route of apiRoutes()) {
      const url = route.url.replace(/:(\w+)/g, 'some-id');
      for (const key of badKeys) {
        const res = await server.app.inject({
          method: route.method as 'GET',
          url,
          headers: key === undefined ? {} : { 'x-api-key': key },
        });
        expect(
          res.statusCode,
          `${route.method} ${route.url} with key ${key === undefined ? 'none' : 'bad'}`,
        ).toBe(401);
        expect(res.json()).toMatchObject({ code: 'unauthorized', requestId: res.headers['x-request-id'] });
      }
    }
  });

  it("answers 403 forbidden with another user's key on every route that names a resource (404 where its existence is hidden)", async () => {
    // Session-only routes (dashboard keys, accounts) refuse every key: accounts.test.ts covers them.
    const withId = apiRoutes().filter((r) => r.url.includes('/:') && r.config.auth !== 'web-session');
    expect(withId.length).toBeGreaterThanOrEqual(9);
    const ids = new Map<string, string>();
    for (const route of withId) {
      const resource = resourceOf(route.url, route.config.resource);
      if (PUBLIC_RESOURCES.has(resource)) continue;
      const factory = FACTORIES[resource];
      expect(factory, `no factory for ${resource} (route ${route.url})`).toBeDefined();
      if (!ids.has(resource)) ids.set(resource, await factory!(alice));
      const url = route.url.replace(/:(\w+)/, ids.get(resource)!);
      const schema = route.schema;
      const payload = schema?.body ? (sampleOf(schema.body) as Record<string, unknown>) : undefined;
      const asBob = await server.app.inject({
        method: route.method as 'GET',
        url,
        headers: { 'x-api-key': bob },
        ...(payload ? { payload } : {}),
      });
      const hidden = HIDDEN_RESOURCES.has(resource);
      expect(asBob.statusCode, `${route.method} ${url}: ${asBob.body}`).toBe(hidden ? 404 : 403);
      expect(asBob.json().code).toBe(hidden ? 'not_found' : 'forbidden');
      const missing = await server.app.inject({
        method: route.method as 'GET',
        url: route.url.replace(/:(\w+)/, 'does-not-exist'),
        headers: { 'x-api-key': bob },
        ...(payload ? { payload } : {}),
      });
      expect(missing.statusCode, `${route.method} ${route.url} unknown id`).toBe(404);
      expect(missing.json().code).toBe('not_found');
      if (hidden)
        expect(asBob.json().detail).toBe(missing.json().detail.replace('does-not-exist', ids.get(resource)!));
    }
  });
});

describe('API keys', () => {
  it('are stored only as a SHA-256 hash and a display prefix', async () => {
    const created = await server.deps.services.apiKeys.createKey('walker-hash');
    keysSeen.push(created.key);
    const row = await server.deps.db
      .selectFrom('api_keys')
      .selectAll()
      .where('prefix', '=', created.prefix)
      .executeTakeFirstOrThrow();
    expect(row.hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(created.key.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.length).toBeLessThan(created.key.length / 2);
    if (TEST_DIALECT === 'sqlite') {
      const dbFile = readFileSync(`${server.dataDir}/vesta.sqlite`);
      const wal = (() => {
        try {
          return readFileSync(`${server.dataDir}/vesta.sqlite-wal`);
        } catch {
          return Buffer.alloc(0);
        }
      })();
      expect(dbFile.includes(created.key)).toBe(false);
      expect(wal.includes(created.key)).toBe(false);
    } else {
      // PostgreSQL: no row of the key and user tables holds the key in any column.
      const rows = await sql<{ row: string }>`select row_to_json(k)::text || row_to_json(u)::text as row
        from api_keys k join users u on u.id = k.user_id`.execute(server.deps.db);
      expect(rows.rows.length).toBeGreaterThan(0);
      for (const r of rows.rows) expect(r.row.includes(created.key)).toBe(false);
    }
  });

  it('are never written to the logs, nor is an upload token', async () => {
    // A whole upload flow plus failures, so that every kind of request line is logged.
    const session = (
      await server.app.inject({
        method: 'GET',
        url: '/api/v1/score',
        headers: { 'x-api-key': alice, 'x-service-source': 'agent' },
      })
    ).json();
    const up = await server.app.inject({
      method: 'POST',
      url: `/api/v1/score/${session.runId}/videos/upload-url`,
      headers: { 'x-api-key': alice, 'idempotency-key': 'log-check' },
      payload: { fileName: 'clip.mp4', contentType: 'video/mp4', prompt: 'a car on a dirt road' },
    });
    expect(up.statusCode).toBe(201);
    const { uploadUrl } = up.json();
    const token = new URL(uploadUrl).searchParams.get('token')!;
    const path = new URL(uploadUrl).pathname + new URL(uploadUrl).search;
    const put = await server.app.inject({
      method: 'PUT',
      url: path,
      headers: { 'content-type': 'video/mp4' },
      payload: readFileSync(clip('zeroscope-v2__toad-karate.mp4')),
    });
    expect(put.statusCode).toBe(200);
    await server.app.inject({
      method: 'PUT',
      url: path,
      headers: { 'content-type': 'video/mp4' },
      payload: Buffer.from('again'),
    });
    await server.app.inject({ method: 'GET', url: '/api/v1/score', headers: { 'x-api-key': `${alice}x` } });
    await server.app.inject({ method: 'GET', url: `/api/v1/nowhere?key=1`, headers: { 'x-api-key': alice } });

    const logs = server.logs.join('');
    expect(logs).toContain('request completed');
    expect(logs).toContain('"source":"agent"');
    for (const key of keysSeen) {
      expect(logs.includes(key)).toBe(false);
      expect(logs.includes(key.slice(12))).toBe(false);
    }
    expect(logs.includes(token)).toBe(false);
    expect(logs.includes(token.split('.')[1]!)).toBe(false);
  });
});
