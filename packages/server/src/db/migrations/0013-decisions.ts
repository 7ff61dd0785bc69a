import type { Kysely } from 'kysely';

/**
 * Decision-grade results (issue #21):
 * - `bench_runs.scorecard`: the run's scorecard with its confidence intervals (JSON), stored when
 *   the run ends, so reading a finished run costs no resampling (null until then, and for runs
 *   that ended before this migration until their first read);
 * - `model_baselines`: per user and model, the run new runs of the model are compared with. A
 *   baseline goes with its run (`ON DELETE CASCADE`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bench_runs').addColumn('scorecard', 'text').execute();
  await db.schema
    .createTable('model_baselines')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull().references('bench_runs.id').onDelete('cascade'))
    .addColumn('set_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('model_baselines_pk', ['user_id', 'model_id'])
    .execute();
  await db.schema.createIndex('model_baselines_run').on('model_baselines').column('run_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('model_baselines').execute();
  await db.schema.alterTable('bench_runs').dropColumn('scorecard').execute();
}
