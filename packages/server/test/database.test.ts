/**
 * The database adapters behave alike (run on SQLite and on PostgreSQL by the two vitest
 * projects): epoch-ms timestamps past 2^31 round-trip, counts and sums come back as numbers (pg
 * returns bigint and numeric as strings unless told), scores keep double precision, log lines get
 * increasing sequence numbers, text with NUL is refused alike, and reopening an up-to-date database migrates nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import type { OpenedDatabase } from '../src/db/connection.js';
import { TEST_DIALECT, dropTestDatabase, testDatabaseTarget } from './helpers/test-database.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-database-'));
let opened: OpenedDatabase;

beforeAll(async () => {
  opened = await openDatabase(await testDatabaseTarget(dir));
});
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase(dir);
});

describe(`database (${TEST_DIALECT})`, () => {
  it('is the dialect the project asked for', () => {
    expect(opened.dialect).toBe(TEST_DIALECT);
  });

  it('round-trips epoch-ms timestamps and sizes past 32 bits as numbers', async () => {
    const { db } = opened;
    const at = Date.UTC(2100, 0, 1); // 4.1e12: overflows a 32-bit integer column
    await db
      .insertInto('users')
      .values({ id: 'u-time', name: 'time-user', created_at: at, role: 'user' })
      .execute();
    const row = await db.selectFrom('users').selectAll().where('id', '=', 'u-time').executeTakeFirstOrThrow();
    expect(row.created_at).toBe(at);
    expect(typeof row.created_at).toBe('number');
  });

  it('returns counts and sums as numbers', async () => {
    const { db } = opened;
    for (const n of [1, 2, 3])
      await db
        .insertInto('users')
        .values({
          id: `u-count-${n}`,
          name: `count-user-${n}`,
          created_at: n * 1_000_000_000_000,
          role: 'user',
        })
        .execute();
    const counted = await db
      .selectFrom('users')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('created_at').as('total')])
      .where('id', 'like', 'u-count-%')
      .executeTakeFirstOrThrow();
    expect(counted).toEqual({ n: 3, total: 6_000_000_000_000 });
  });

  it('keeps scores in double precision', async () => {
    const { db } = opened;
    const now = Date.now();
    await db
      .insertInto('sessions')
      .values({
        id: 's-1',
        user_id: 'u-time',
        kind: 'score',
        prompt: null,
        created_at: now,
        retired_at: null,
        active: 1,
      })
      .execute();
    await db
      .insertInto('videos')
      .values({
        id: 'v-1',
        session_id: 's-1',
        user_id: 'u-time',
        file_name: 'a.mp4',
        content_type: 'video/mp4',
        prompt: null,
        auxiliary: null,
        state: 'scored',
        error_code: null,
        error_detail: null,
        blob_key: 'k',
        max_bytes: 64 * 1024 * 1024 * 1024,
        size_bytes: null,
        upload_expires_at: now,
        upload_started_at: null,
        probe: null,
        dimensions: null,
        created_at: now,
        uploaded_at: null,
        confirmed_at: null,
        scored_at: null,
      })
      .execute();
    const value = 0.123456789012345;
    await db
      .insertInto('scores')
      .values({
        video_id: 'v-1',
        dimension: 'imaging_quality',
        value,
        method: 'm',
        method_version: '1',
        frames: '[]',
        models: '[]',
        details: null,
        elapsed_ms: 1.5,
        created_at: now,
      })
      .execute();
    const score = await db.selectFrom('scores').select('value').executeTakeFirstOrThrow();
    expect(score.value).toBe(value);
    const video = await db.selectFrom('videos').select('max_bytes').executeTakeFirstOrThrow();
    expect(video.max_bytes).toBe(64 * 1024 * 1024 * 1024);
  });

  it('gives log lines increasing sequence numbers', async () => {
    const { db } = opened;
    await db
      .insertInto('bench_runs')
      .values({
        id: 'r-1',
        user_id: 'u-time',
        name: 'run',
        model_id: 'vesta-demo',
        runner_id: null,
        dimensions: '[]',
        status: 'queued',
        error_code: null,
        error_detail: null,
        created_at: 0,
        updated_at: 0,
        started_at: null,
        finished_at: null,
      })
      .execute();
    for (const message of ['a', 'b', 'c'])
      await db
        .insertInto('bench_logs')
        .values({ run_id: 'r-1', time: Date.now(), source: 'server', level: 'info', message })
        .execute();
    const seqs = (await db.selectFrom('bench_logs').select('seq').orderBy('seq').execute()).map((r) => r.seq);
    expect(seqs).toHaveLength(3);
    expect(seqs.every((s) => typeof s === 'number')).toBe(true);
    expect(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!).toBe(true);
  });

  it('refuses text with a NUL character as validation_failed, on both databases', async () => {
    await expect(
      opened.db.selectFrom('users').select('id').where('id', '=', 'a\u0000b').execute(),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('opens again with nothing left to migrate', async () => {
    const again = await openDatabase(await testDatabaseTarget(dir));
    try {
      expect(
        await again.db.selectFrom('users').select('id').where('id', '=', 'u-time').execute(),
      ).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});
