/**
 * Idempotency-Key through a PostgreSQL restart, on a PostgreSQL server of the test's own: a POST
 * whose outcome could not be written while the database was down must not block its key for the
 * in-progress lock's 5 minutes. Once the database is back, the same key runs again (the request
 * failed) or replays the answer already sent (the request succeeded), within seconds.
 *
 * The request is held at a chosen point with real locks taken by the test's own connections: an
 * exclusive lock on `runners` holds the handler's insert; a row lock on the key's record holds the
 * write of its outcome. The restart is `pg_ctl stop -m fast`, which cuts every session off.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { PgInstance } from './helpers/pg-instance.js';

let pgServer: PgInstance;
let server: CoreTestServer;
let apiKey: string;

beforeAll(async () => {
  pgServer = await PgInstance.start();
  server = await startCoreServer({
    env: { VESTA_DATABASE_URL: pgServer.url(), VESTA_DATABASE_POOL_SIZE: '4' },
  });
  apiKey = await server.key();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await pgServer?.destroy();
});

const register = (idempotencyKey: string, name: string) =>
  server.app.inject({
    method: 'POST',
    url: '/api/v1/runners',
    headers: { 'x-api-key': apiKey, 'idempotency-key': idempotencyKey },
    payload: { name, models: ['vesta-demo'] },
  });

/** A connection of the test's own; its errors (the restart cuts it off) are expected. */
async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: pgServer.url() });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function poll<T>(what: string, read: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Registers a runner under `key` and holds the request in its handler: the test's `holder`
 * connection locks `runners` before the request is sent, and the call returns once the key's
 * claim is recorded (the request is past its idempotency check). `watch` reads meanwhile.
 */
async function heldInHandler(key: string, name: string) {
  const watch = await connection();
  const holder = await connection();
  await holder.query('begin');
  await holder.query('lock table runners in access exclusive mode');
  const first = register(key, name);
  await poll(`the claim of ${key}`, async () => {
    const { rows } = await watch.query(
      "select 1 from idempotency_records where key = $1 and state = 'in_progress'",
      [key],
    );
    return rows.length === 1 ? true : undefined;
  });
  return { watch, holder, first };
}

const closeAll = (clients: pg.Client[]): Promise<unknown> =>
  Promise.all(clients.map((c) => c.end().catch(() => undefined)));

/**
 * Sends the key again until it is answered with something other than 409 conflict (with
 * Retry-After: the first request's outcome not written yet) or 503 (the database coming back).
 */
async function retryUntilSettled(key: string, name: string) {
  let last = await register(key, name);
  const deadline = Date.now() + 20_000;
  while ((last.statusCode === 409 || last.statusCode === 503) && Date.now() < deadline) {
    if (last.statusCode === 409) {
      expect(last.json().code).toBe('conflict');
      expect(last.headers['retry-after']).toBeDefined();
    }
    await new Promise((r) => setTimeout(r, 250));
    last = await register(key, name);
  }
  return last;
}

async function runnersNamed(name: string): Promise<number> {
  const listed = await server.app.inject({
    method: 'GET',
    url: '/api/v1/runners?limit=100',
    headers: { 'x-api-key': apiKey },
  });
  expect(listed.statusCode, listed.body).toBe(200);
  return (listed.json().items as Array<{ name: string }>).filter((r) => r.name === name).length;
}

describe('Idempotency-Key through a PostgreSQL restart', () => {
  it('a request the restart cut off runs again under its key once the database is back (not after 5 minutes)', async () => {
    const { watch, holder, first } = await heldInHandler('outage-failed', 'cut-off');
    await pgServer.pause();
    try {
      const answer = await first;
      expect(answer.statusCode, answer.body).toBe(503);
      const meanwhile = await register('outage-failed', 'cut-off');
      expect(meanwhile.statusCode, meanwhile.body).toBe(503);
    } finally {
      await pgServer.resume();
    }
    const resumed = Date.now();
    const again = await retryUntilSettled('outage-failed', 'cut-off');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(Date.now() - resumed).toBeLessThan(20_000);
    expect(await runnersNamed('cut-off')).toBe(1);
    await closeAll([watch, holder]);
  }, 120_000);

  it('a 2xx whose record could not be kept is answered all the same, and replayed under its key once the database is back', async () => {
    const { watch, holder, first } = await heldInHandler('outage-succeeded', 'answered');
    const rowLock = await connection();
    // Hold the key's record, then let the handler insert its runner: the write of its outcome
    // waits on the record until the restart cuts it off.
    await rowLock.query('begin');
    await rowLock.query("select 1 from idempotency_records where key = 'outage-succeeded' for update");
    await holder.query('commit');
    await poll('the outcome write waiting on the record', async () => {
      const { rows } = await watch.query(
        "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'update%idempotency_records%'",
      );
      return rows.length === 1 ? true : undefined;
    });
    await pgServer.pause();
    let answered;
    try {
      answered = await first;
      expect(answered.statusCode, answered.body).toBe(201);
    } finally {
      await pgServer.resume();
    }
    const again = await retryUntilSettled('outage-succeeded', 'answered');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(answered.json());
    expect(await runnersNamed('answered')).toBe(1);
    await closeAll([watch, holder, rowLock]);
  }, 120_000);
});
