import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { BENCH_TASK_STATES } from '../schema-bench.js';

/**
 * A run's task count per state, kept on its `bench_runs` row (`n_pending` … `n_cancelled`) by
 * triggers on `bench_tasks`, so that reading a run's progress — what clients poll — is one
 * primary-key lookup instead of counting its tasks (a full VBench run has thousands). Triggers
 * cover every code path that inserts, deletes or moves a task, including bulk updates (cancel,
 * lease reaping), because they run inside the statement that changes the task.
 */
const COUNTER_COLUMNS = BENCH_TASK_STATES.map((s) => `n_${s}` as const);

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COUNTER_COLUMNS) {
    await db.schema
      .alterTable('bench_runs')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  // SQLite evaluates a comparison to 0 or 1: each counter moves only for its own state.
  const adjust = (sign: '+' | '-', row: 'new' | 'old'): string =>
    BENCH_TASK_STATES.map((s) => `n_${s} = n_${s} ${sign} (${row}.state = '${s}')`).join(', ');
  const move = BENCH_TASK_STATES.map(
    (s) => `n_${s} = n_${s} + (new.state = '${s}') - (old.state = '${s}')`,
  ).join(', ');
  await sql
    .raw(
      `create trigger bench_tasks_count_insert after insert on bench_tasks begin
        update bench_runs set ${adjust('+', 'new')} where id = new.run_id; end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger bench_tasks_count_delete after delete on bench_tasks begin
        update bench_runs set ${adjust('-', 'old')} where id = old.run_id; end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger bench_tasks_count_move after update of state on bench_tasks
        when old.state is not new.state begin
        update bench_runs set ${move} where id = new.run_id; end`,
    )
    .execute(db);
  // Runs created before this migration: count their tasks once.
  const backfill = BENCH_TASK_STATES.map(
    (s) =>
      `n_${s} = (select count(*) from bench_tasks t where t.run_id = bench_runs.id and t.state = '${s}')`,
  ).join(', ');
  await sql.raw(`update bench_runs set ${backfill}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['bench_tasks_count_insert', 'bench_tasks_count_delete', 'bench_tasks_count_move'])
    await sql.raw(`drop trigger if exists ${name}`).execute(db);
  for (const column of COUNTER_COLUMNS) await db.schema.alterTable('bench_runs').dropColumn(column).execute();
}
