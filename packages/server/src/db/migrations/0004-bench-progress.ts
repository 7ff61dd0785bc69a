import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { BENCH_TASK_STATES } from '../../domain/clip-lifecycle.js';
import { dialectOf } from '../dialect.js';

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
  // 1 when the row is in state s, else 0 — a CASE, so that both databases read it the same way.
  const is = (row: 'new' | 'old', s: string): string => `(case when ${row}.state = '${s}' then 1 else 0 end)`;
  const adjust = (sign: '+' | '-', row: 'new' | 'old'): string =>
    BENCH_TASK_STATES.map((s) => `n_${s} = n_${s} ${sign} ${is(row, s)}`).join(', ');
  const move = BENCH_TASK_STATES.map((s) => `n_${s} = n_${s} + ${is('new', s)} - ${is('old', s)}`).join(', ');
  if (dialectOf(db) === 'postgres') {
    // PL/pgSQL: one trigger function per event, each one UPDATE of the run row.
    const fn = async (name: string, body: string, returns: 'new' | 'old'): Promise<void> => {
      await sql
        .raw(
          `create or replace function ${name}() returns trigger language plpgsql as $$
          begin ${body}; return ${returns}; end $$`,
        )
        .execute(db);
    };
    await fn(
      'bench_tasks_count_insert',
      `update bench_runs set ${adjust('+', 'new')} where id = new.run_id`,
      'new',
    );
    await fn(
      'bench_tasks_count_delete',
      `update bench_runs set ${adjust('-', 'old')} where id = old.run_id`,
      'old',
    );
    await fn('bench_tasks_count_move', `update bench_runs set ${move} where id = new.run_id`, 'new');
    await sql
      .raw(
        `create trigger bench_tasks_count_insert after insert on bench_tasks
          for each row execute function bench_tasks_count_insert()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger bench_tasks_count_delete after delete on bench_tasks
          for each row execute function bench_tasks_count_delete()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger bench_tasks_count_move after update of state on bench_tasks
          for each row when (old.state is distinct from new.state)
          execute function bench_tasks_count_move()`,
      )
      .execute(db);
  } else {
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
  }
  // Runs created before this migration: count their tasks once.
  const backfill = BENCH_TASK_STATES.map(
    (s) =>
      `n_${s} = (select count(*) from bench_tasks t where t.run_id = bench_runs.id and t.state = '${s}')`,
  ).join(', ');
  await sql.raw(`update bench_runs set ${backfill}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  for (const name of ['bench_tasks_count_insert', 'bench_tasks_count_delete', 'bench_tasks_count_move']) {
    await sql.raw(`drop trigger if exists ${name}${postgres ? ' on bench_tasks' : ''}`).execute(db);
    if (postgres) await sql.raw(`drop function if exists ${name}()`).execute(db);
  }
  for (const column of COUNTER_COLUMNS) await db.schema.alterTable('bench_runs').dropColumn(column).execute();
}
