/**
 * The per-state task counters on `bench_runs` (migration 0004) against a plain count of the
 * tasks, after every kind of change: inserts, single and bulk state moves, no-op updates,
 * deletes, and a run deleted with its tasks; and the backfill of runs that existed before. On
 * PostgreSQL the counts come back as numbers too (pg returns bigint as a string unless told).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { Kysely, Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase, createMigrator } from '../src/db/connection.js';
import { BENCH_TASK_STATES } from '../src/domain/clip-lifecycle.js';
import { dropTestDatabase, testDatabaseTarget } from './helpers/test-database.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) {
    rmSync(d, { recursive: true, force: true });
    await dropTestDatabase(d);
  }
});

/** A fresh database on the project's dialect (SQLite file or PostgreSQL schema), not migrated. */
async function open(): Promise<{ db: Kysely<unknown>; migrator: Migrator }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-counters-'));
  dirs.push(dir);
  const opened = connectDatabase(await testDatabaseTarget(dir));
  return { db: opened.db as unknown as Kysely<unknown>, migrator: await createMigrator(opened.db) };
}

async function migrate(migrator: Migrator, to?: string): Promise<void> {
  const { error } = to === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(to);
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
}

async function seedRun(db: Kysely<unknown>, runId: string, states: readonly string[]): Promise<void> {
  await sql`insert into users (id, name, created_at) values ('u1', 'counter-user', 0) on conflict do nothing`.execute(
    db,
  );
  await sql`insert into models (id, name, description, created_at) values ('m1', 'm', 'm', 0) on conflict do nothing`.execute(
    db,
  );
  await sql`insert into bench_runs (id, user_id, name, model_id, dimensions, status, created_at, updated_at)
    values (${runId}, 'u1', 'run', 'm1', '[]', 'queued', 0, 0)`.execute(db);
  let seq = 0;
  for (const state of states) {
    await sql`insert into bench_tasks (id, run_id, seq, prompt, dimensions, sample_index, seed, state, created_at, updated_at)
      values (${`${runId}-t${seq}`}, ${runId}, ${seq}, 'p', '[]', 0, 1, ${state}, 0, 0)`.execute(db);
    seq++;
  }
}

/** The counters on the row and the tasks counted, per state. */
async function both(
  db: Kysely<unknown>,
  runId: string,
): Promise<{ counters: Record<string, number>; counted: Record<string, number> }> {
  const row = (await sql<Record<string, number>>`select * from bench_runs where id = ${runId}`.execute(db))
    .rows[0];
  const groups = (
    await sql<{
      state: string;
      n: number;
    }>`select state, count(*) as n from bench_tasks where run_id = ${runId} group by state`.execute(db)
  ).rows;
  const counters: Record<string, number> = {};
  const counted: Record<string, number> = {};
  for (const s of BENCH_TASK_STATES) {
    counters[s] = row?.[`n_${s}`] ?? -1;
    counted[s] = groups.find((g) => g.state === s)?.n ?? 0;
  }
  return { counters, counted };
}

describe('bench run task counters', () => {
  it('follow inserts, single and bulk moves, no-op updates and deletes', async () => {
    const { db, migrator } = await open();
    await migrate(migrator);
    await seedRun(db, 'r1', ['pending', 'pending', 'pending', 'pending', 'pending']);
    await seedRun(db, 'r2', ['pending', 'claimed']);
    let { counters, counted } = await both(db, 'r1');
    expect(counters).toEqual(counted);
    expect(counters.pending).toBe(5);

    // One task through its whole life.
    for (const state of ['claimed', 'uploaded', 'evaluating', 'done'])
      await sql`update bench_tasks set state = ${state} where id = 'r1-t0'`.execute(db);
    // A lease lost and re-queued, then failed for good.
    await sql`update bench_tasks set state = 'claimed' where id = 'r1-t1'`.execute(db);
    await sql`update bench_tasks set state = 'pending' where id = 'r1-t1'`.execute(db);
    await sql`update bench_tasks set state = 'failed' where id = 'r1-t1'`.execute(db);
    // An update that leaves the state as it was, and one of another column.
    await sql`update bench_tasks set state = 'pending' where id = 'r1-t2'`.execute(db);
    await sql`update bench_tasks set attempts = attempts + 1 where run_id = 'r1'`.execute(db);
    ({ counters, counted } = await both(db, 'r1'));
    expect(counters).toEqual(counted);
    expect(counters).toMatchObject({ pending: 3, done: 1, failed: 1 });

    // A cancel: every unfinished task of the run in one statement.
    await sql`update bench_tasks set state = 'cancelled' where run_id = 'r1' and state in ('pending', 'claimed')`.execute(
      db,
    );
    ({ counters, counted } = await both(db, 'r1'));
    expect(counters).toEqual(counted);
    expect(counters).toMatchObject({ pending: 0, cancelled: 3 });

    await sql`delete from bench_tasks where id = 'r1-t0'`.execute(db);
    ({ counters, counted } = await both(db, 'r1'));
    expect(counters).toEqual(counted);
    expect(counters.done).toBe(0);

    // The other run was never touched by any of this.
    ({ counters, counted } = await both(db, 'r2'));
    expect(counters).toEqual(counted);
    expect(counters).toMatchObject({ pending: 1, claimed: 1 });

    // Deleting a run with its tasks (the run row first, as BenchRunService.delete does) is clean.
    await sql`delete from bench_runs where id = 'r2'`.execute(db);
    expect((await sql`select * from bench_tasks where run_id = 'r2'`.execute(db)).rows).toEqual([]);
    await db.destroy();
  });

  it('are backfilled for runs created before the migration', async () => {
    const { db, migrator } = await open();
    await migrate(migrator, '0003-runners');
    await seedRun(db, 'old', ['pending', 'done', 'done', 'failed', 'cancelled', 'evaluating']);
    await migrate(migrator);
    const { counters, counted } = await both(db, 'old');
    expect(counters).toEqual(counted);
    expect(counters).toEqual({
      pending: 1,
      claimed: 0,
      uploaded: 0,
      evaluating: 1,
      done: 2,
      failed: 1,
      cancelled: 1,
    });
    await db.destroy();
  });
});
