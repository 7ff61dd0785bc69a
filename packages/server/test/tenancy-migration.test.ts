/**
 * Migration 0005-tenancy on a database with rows from before it: runner-declared models become
 * private to each user whose runners serve them (each gets a copy; their runners and runs move to
 * it), a declared model no runner serves goes to the user of its earliest run or is deleted,
 * operator models and the demo stay global, and queued jobs get the default fairness key and lane.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/db/migrations/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function migrate(migrator: Migrator, to?: string): Promise<void> {
  const { error } = to === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(to);
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
}

describe('migration 0005-tenancy', () => {
  it('makes runner-declared models private to their users and keeps the rest global', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-tenancy-mig-'));
    dirs.push(dir);
    const sqlite = new SqliteDatabase(path.join(dir, 'db.sqlite'));
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const provider: MigrationProvider = {
      getMigrations: () =>
        Promise.resolve(
          Object.fromEntries(MIGRATIONS.map((m) => [m.name, m.migration])) as Record<string, Migration>,
        ),
    };
    const migrator = new Migrator({ db, provider });
    await migrate(migrator, '0004-bench-progress');

    await sql`insert into users (id, name, created_at) values ('ua', 'a', 1), ('ub', 'b', 2), ('uc', 'c', 3)`.execute(
      db,
    );
    await sql`insert into models (id, name, description, created_at) values
      ('shared', 'shared', 'Declared by runner ''ra'' when it registered.', 1),
      ('orphan', 'orphan', 'Declared by runner ''gone'' when it registered.', 1),
      ('ran-only', 'ran-only', 'Declared by runner ''gone'' when it registered.', 1),
      ('acme/op', 'Operator model', 'In-house.', 1)`.execute(db);
    await sql`insert into runners (id, user_id, name, created_at) values ('ra', 'ua', 'ra', 1), ('rb', 'ub', 'rb', 2)`.execute(
      db,
    );
    await sql`insert into runner_models (runner_id, model_id) values ('ra', 'shared'), ('rb', 'shared'), ('rb', 'acme/op')`.execute(
      db,
    );
    await sql`insert into bench_runs (id, user_id, name, model_id, dimensions, status, created_at, updated_at) values
      ('run-b', 'ub', 'r', 'shared', '[]', 'queued', 1, 1),
      ('run-c', 'uc', 'r', 'shared', '[]', 'queued', 1, 1),
      ('run-c2', 'uc', 'r', 'ran-only', '[]', 'queued', 1, 1)`.execute(db);
    await sql`insert into jobs (id, type, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
      values ('j1', 't', '{}', 'queued', 0, 3, 1, 1, 1)`.execute(db);

    await migrate(migrator);

    const models = await sql<{ id: string; owner_id: string | null; public_id: string }>`
      select id, owner_id, public_id from models order by public_id, owner_id`.execute(db);
    expect(models.rows).toEqual([
      { id: 'acme/op', owner_id: null, public_id: 'acme/op' },
      { id: '@uc/ran-only', owner_id: 'uc', public_id: 'ran-only' },
      { id: '@ua/shared', owner_id: 'ua', public_id: 'shared' },
      { id: '@ub/shared', owner_id: 'ub', public_id: 'shared' },
      { id: 'vesta-demo', owner_id: null, public_id: 'vesta-demo' },
    ]);
    const links =
      await sql`select runner_id, model_id from runner_models order by runner_id, model_id`.execute(db);
    expect(links.rows).toEqual([
      { runner_id: 'ra', model_id: '@ua/shared' },
      { runner_id: 'rb', model_id: '@ub/shared' },
      { runner_id: 'rb', model_id: 'acme/op' },
    ]);
    const runs = await sql`select id, model_id from bench_runs order by id`.execute(db);
    expect(runs.rows).toEqual([
      { id: 'run-b', model_id: '@ub/shared' },
      // C ran A's declared model before it was private: the run follows the first owner's copy.
      { id: 'run-c', model_id: '@ua/shared' },
      { id: 'run-c2', model_id: '@uc/ran-only' },
    ]);
    const job = await sql`select fairness_key, priority, claimed_at from jobs`.execute(db);
    expect(job.rows).toEqual([{ fairness_key: '', priority: 1, claimed_at: null }]);
    await db.destroy();
  });
});
