/** GET /api/v1/dimensions and /api/v1/models on a real server with the real engine registry. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSION_IDS, listDimensions } from '@vesta/engine';
import { Repositories } from '../src/repositories/index.js';
import { ModelService } from '../src/services/model.service.js';
import { startTestServer } from './helpers/bench-app.js';
import type { TestServer } from './helpers/bench-app.js';

let server: TestServer;
let key: string;
let userId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ key, userId } = await server.key());
});
afterAll(async () => {
  await server.stop();
});

const get = (url: string, apiKey: string | null = key) =>
  server.app.inject({ method: 'GET', url, headers: apiKey ? { 'x-api-key': apiKey } : {} });

describe('GET /api/v1/dimensions', () => {
  it("lists VBench's 16 dimensions in order with methods, requirements, availability and normalisation", async () => {
    const res = await get('/api/v1/dimensions');
    expect(res.statusCode).toBe(200);
    const { items } = res.json<{ items: Array<Record<string, any>> }>(); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(items.map((d) => d.id)).toEqual([...DIMENSION_IDS]);
    const engine = server.deps.engine.dimensions();
    for (const [i, d] of items.entries()) {
      const info = engine[i]!;
      expect(Object.keys(d).sort()).toEqual(
        [
          'category',
          'defaultMethod',
          'description',
          'higherIsBetter',
          'id',
          'methods',
          'name',
          'normalisation',
          'range',
          'workflows',
        ].sort(),
      );
      expect(d).toMatchObject({
        name: info.name,
        category: info.category,
        higherIsBetter: true,
        range: info.range,
        defaultMethod: info.defaultMethod,
        normalisation: info.normalisation,
        workflows: info.workflows,
      });
      expect(d.methods).toHaveLength(info.methods.length);
      for (const [j, m] of d.methods.entries()) {
        const mi = info.methods[j]!;
        expect(m).toEqual({
          id: mi.id,
          version: mi.version,
          description: mi.description,
          requires: mi.requires,
          available: mi.available,
          unavailableReason: mi.unavailableReason ?? null,
        });
        if (!m.available) expect(m.unavailableReason).toMatch(/\S/);
      }
    }
    const dynamic = items.find((d) => d.id === 'dynamic_degree')!;
    expect(dynamic.normalisation).toEqual({ min: 0, max: 1, weight: 0.5 });
    const scene = items.find((d) => d.id === 'scene')!;
    expect(scene).toMatchObject({ category: 'semantic', workflows: ['bench'] });
    expect(scene.methods[0].requires.auxiliary).toEqual(['scene']);
    // The registry without any model installed: what this server reports matches it.
    expect(items.map((d) => d.defaultMethod)).toEqual(listDimensions().map((d) => d.defaultMethod));
  });

  it('needs an API key', async () => {
    const res = await get('/api/v1/dimensions', null);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthorized' });
  });
});

describe('GET /api/v1/models', () => {
  it('lists only the built-in demo generator on a fresh server, named as a demo', async () => {
    const res = await get('/api/v1/models');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        {
          id: 'vesta-demo',
          name: 'Vesta demo generator (procedural, not a real model)',
          description: expect.stringMatching(/demo.*procedural/i) as unknown,
          runners: [],
          online: false,
          createdAt: expect.any(String) as unknown,
        },
      ],
    });
  });

  it('lists models with the runners serving them and whether one is online', async () => {
    let now = 1_800_000_000_000;
    const catalog = new ModelService({ repos: new Repositories(server.deps.db), now: () => now });
    await catalog.upsert({ id: 'm-fast', name: 'Fast', description: 'first' });
    await catalog.upsert({ id: 'm-slow', name: 'Slow', description: 'second' });
    await catalog.upsert({ id: 'm-fast', name: 'Fast v2', description: 'renamed' });
    const db = server.deps.db;
    await db
      .insertInto('runners')
      .values([
        { id: 'r-live', user_id: userId, name: 'live', created_at: now, last_seen_at: now - 10_000 },
        { id: 'r-stale', user_id: userId, name: 'stale', created_at: now, last_seen_at: now - 120_000 },
        { id: 'r-new', user_id: userId, name: 'never seen', created_at: now, last_seen_at: null },
      ])
      .execute();
    await db
      .insertInto('runner_models')
      .values([
        { runner_id: 'r-stale', model_id: 'm-fast' },
        { runner_id: 'r-live', model_id: 'm-fast' },
        { runner_id: 'r-stale', model_id: 'm-slow' },
        { runner_id: 'r-new', model_id: 'm-slow' },
      ])
      .execute();
    const listed = (await catalog.list(userId)).filter((m) => m.id !== 'vesta-demo');
    expect(listed).toEqual([
      {
        id: 'm-fast',
        name: 'Fast v2',
        description: 'renamed',
        online: true,
        createdAt: new Date(now).toISOString(),
        runners: [
          { id: 'r-live', name: 'live', online: true, lastSeenAt: new Date(now - 10_000).toISOString() },
          {
            id: 'r-stale',
            name: 'stale',
            online: false,
            lastSeenAt: new Date(now - 120_000).toISOString(),
          },
        ],
      },
      {
        id: 'm-slow',
        name: 'Slow',
        description: 'second',
        online: false,
        createdAt: new Date(now).toISOString(),
        runners: [
          { id: 'r-new', name: 'never seen', online: false, lastSeenAt: null },
          {
            id: 'r-stale',
            name: 'stale',
            online: false,
            lastSeenAt: new Date(now - 120_000).toISOString(),
          },
        ],
      },
    ]);
    // Over HTTP (the server's own clock): the same models and runners.
    const res = await get('/api/v1/models');
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      items: Array<{ id: string; online: boolean; runners: Array<{ id: string }> }>;
    }>();
    expect(body.items.map((m) => [m.id, m.runners.map((r) => r.id).sort()])).toEqual([
      ['m-fast', ['r-live', 'r-stale']],
      ['m-slow', ['r-new', 'r-stale']],
      ['vesta-demo', []],
    ]);
    // Another user sees the models but not these runners (only a user's own runners serve its runs).
    expect((await catalog.list('someone-else')).flatMap((m) => m.runners)).toEqual([]);
    now += 60_000;
    expect((await catalog.list(userId))[0]?.online).toBe(false);
  });
});
