import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/** Models, runners, Bench runs, their tasks and their logs (see `db/schema-bench.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('models')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('runners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint')
    .execute();

  await db.schema
    .createTable('runner_models')
    .addColumn('runner_id', 'text', (c) => c.notNull().references('runners.id').onDelete('cascade'))
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('runner_models_pk', ['runner_id', 'model_id'])
    .execute();
  await db.schema.createIndex('runner_models_by_model').on('runner_models').column('model_id').execute();

  await db.schema
    .createTable('bench_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id'))
    .addColumn('runner_id', 'text', (c) => c.references('runners.id').onDelete('set null'))
    .addColumn('dimensions', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_detail', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('bench_runs_by_user')
    .on('bench_runs')
    .columns(['user_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('bench_runs_by_status').on('bench_runs').column('status').execute();

  await db.schema
    .createTable('bench_tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('bench_runs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('auxiliary', 'text')
    .addColumn('dimensions', 'text', (c) => c.notNull())
    .addColumn('sample_index', 'integer', (c) => c.notNull())
    .addColumn('seed', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('runner_id', 'text', (c) => c.references('runners.id').onDelete('set null'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('video_id', 'text', (c) => c.references('videos.id').onDelete('set null'))
    .addColumn('error_code', 'text')
    .addColumn('error_detail', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('bench_tasks_by_run')
    .on('bench_tasks')
    .columns(['run_id', 'seq'])
    .unique()
    .execute();
  await db.schema
    .createIndex('bench_tasks_by_state')
    .on('bench_tasks')
    .columns(['state', 'lease_expires_at'])
    .execute();
  await db.schema.createIndex('bench_tasks_by_video').on('bench_tasks').column('video_id').execute();

  await db.schema
    .createTable('bench_logs')
    // An increasing sequence number: SQLite's rowid alias, PostgreSQL's identity column.
    .addColumn('seq', dialectOf(db) === 'postgres' ? 'bigint' : 'integer', (c) =>
      dialectOf(db) === 'postgres'
        ? c.primaryKey().generatedByDefaultAsIdentity()
        : c.primaryKey().autoIncrement(),
    )
    .addColumn('run_id', 'text', (c) => c.notNull().references('bench_runs.id').onDelete('cascade'))
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bench_logs_by_run').on('bench_logs').columns(['run_id', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['bench_logs', 'bench_tasks', 'bench_runs', 'runner_models', 'runners', 'models']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
