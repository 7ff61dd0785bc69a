import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Runner protocol and run orchestration (issue #5): runner capacity and version; a run's sampling
 * options and prompt-suite version; a task's lease id, attempt limit, prompt id, clip group and
 * lease-expiry count; the clips minted for a task (`bench_task_videos`); the built-in demo model.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('runners')
    .addColumn('max_concurrency', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('runners').addColumn('version', 'text').execute();
  await db.schema.createIndex('runners_by_user').on('runners').columns(['user_id', 'created_at']).execute();

  await db.schema
    .alterTable('bench_runs')
    .addColumn('samples_per_prompt', 'integer', (c) => c.notNull().defaultTo(5))
    .execute();
  await db.schema.alterTable('bench_runs').addColumn('prompts_per_dimension', 'integer').execute();
  await db.schema.alterTable('bench_runs').addColumn('suite_version', 'text').execute();

  await db.schema.alterTable('bench_tasks').addColumn('lease_id', 'text').execute();
  await db.schema
    .alterTable('bench_tasks')
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3))
    .execute();
  await db.schema.alterTable('bench_tasks').addColumn('prompt_id', 'text').execute();
  await db.schema.alterTable('bench_tasks').addColumn('clip_group', 'text').execute();
  await db.schema
    .alterTable('bench_tasks')
    .addColumn('lease_expiries', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('bench_tasks_run_state')
    .on('bench_tasks')
    .columns(['run_id', 'state'])
    .execute();

  await db.schema
    .createTable('bench_task_videos')
    .addColumn('video_id', 'text', (c) => c.primaryKey().references('videos.id').onDelete('cascade'))
    .addColumn('task_id', 'text', (c) => c.notNull().references('bench_tasks.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('bench_task_videos_by_task')
    .on('bench_task_videos')
    .column('task_id')
    .execute();

  await sql`insert into models (id, name, description, created_at) values (
    'vesta-demo',
    'Vesta demo generator (procedural, not a real model)',
    'A demo: synthesises clips procedurally from the prompt and seed (moving shapes, no learned model), so a Bench run can be tried end to end without a GPU. Its scores say nothing about any real video generator.',
    ${Date.now()}
  ) on conflict (id) do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bench_task_videos').ifExists().execute();
  await sql`delete from models where id = 'vesta-demo'`.execute(db);
}
