/**
 * Bench runs and their logs: the root of the Bench run aggregate (its tasks are
 * `bench-tasks.repository.ts`; its status moves, with the clip moves that drive them, are
 * `bench-lifecycle.repository.ts`). A run's progress is the per-state task counters on its row, kept by
 * triggers on `bench_tasks` (migration `0004-bench-progress`), so reading it costs one row.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import { ownedRead } from './owned.js';
import type { Owned } from './owned.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { BenchLogsTable, BenchRunsTable, ModelBaselinesTable } from '../db/schema-bench.js';
import type { BenchStatus } from '../domain/bench-state.js';
import { countRows } from './count-rows.js';

/** A stored run, with its per-state task counters. */
export type BenchRunRecord = Selectable<BenchRunsTable>;
/**
 * A stored run without its scorecard (the stored JSON, ~8 kB for 16 dimensions): what a poll of a
 * finished run reads when that scorecard's parsed view is already kept (see bench-scorecard).
 */
export type BenchRunHead = Omit<BenchRunRecord, 'scorecard'>;

/** Every column but `scorecard` (the record type makes the list complete). */
const HEAD_COLUMNS = Object.keys({
  id: true,
  user_id: true,
  name: true,
  model_id: true,
  runner_id: true,
  dimensions: true,
  status: true,
  error_code: true,
  error_detail: true,
  created_at: true,
  updated_at: true,
  started_at: true,
  finished_at: true,
  samples_per_prompt: true,
  prompts_per_dimension: true,
  suite_version: true,
  n_pending: true,
  n_claimed: true,
  n_uploaded: true,
  n_evaluating: true,
  n_done: true,
  n_failed: true,
  n_cancelled: true,
} satisfies Record<keyof BenchRunHead, true>) as Array<keyof BenchRunHead>;

/** A user's baseline run of a model. */
export type ModelBaselineRecord = Selectable<ModelBaselinesTable>;
/** A stored log line. */
export type BenchLogRecord = Selectable<BenchLogsTable>;
/** A log line to append (its `seq` is given by the database). */
export type NewBenchLog = Omit<BenchLogRecord, 'seq'>;

export class BenchRunRepository {
  /** The run by id: serves every poll of a run, so compiled once (on first use, per executor). */
  private byIdQuery?: (...params: unknown[]) => Promise<BenchRunRecord[]>;
  /** The same without the scorecard column (polls of finished runs whose scorecard is kept). */
  private headByIdQuery?: (...params: unknown[]) => Promise<BenchRunHead[]>;

  constructor(private readonly db: Db) {}

  async byId(id: string): Promise<BenchRunRecord | undefined> {
    this.byIdQuery ??= preparedQuery(
      this.db,
      this.db.selectFrom('bench_runs').selectAll().where('id', '=', '?'),
      1,
    );
    const [row] = await this.byIdQuery(id);
    return row;
  }
  /** The run `id` as user `owner` may see it (`Owned`). */
  async ownedBy(id: string, owner: string): Promise<Owned<BenchRunRecord>> {
    return ownedRead(await this.byId(id), (r) => r.user_id, owner);
  }

  /** The run without its stored scorecard. */
  async headById(id: string): Promise<BenchRunHead | undefined> {
    this.headByIdQuery ??= preparedQuery(
      this.db,
      this.db.selectFrom('bench_runs').select(HEAD_COLUMNS).where('id', '=', '?'),
      1,
    );
    const [row] = await this.headByIdQuery(id);
    return row;
  }

  /** `headById` as user `owner` may see it (`Owned`). */
  async headOwnedBy(id: string, owner: string): Promise<Owned<BenchRunHead>> {
    return ownedRead(await this.headById(id), (r) => r.user_id, owner);
  }

  async statusOf(id: string): Promise<BenchStatus | undefined> {
    const row = await this.db
      .selectFrom('bench_runs')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.status;
  }

  async insert(row: BenchRunRecord): Promise<void> {
    await this.db.insertInto('bench_runs').values(row).execute();
  }

  async countOf(userId: string): Promise<number> {
    return countRows(this.db.selectFrom('bench_runs').where('user_id', '=', userId));
  }

  /**
   * A page of the user's runs, newest first, without their stored scorecards: `has_scorecard` says
   * whether the row holds one (a null test, which reads none of the stored text).
   */
  async headPageOf(
    userId: string,
    limit: number,
    offset: number,
  ): Promise<Array<BenchRunHead & { has_scorecard: boolean }>> {
    const rows = await this.db
      .selectFrom('bench_runs')
      .select(HEAD_COLUMNS)
      .select(sql<number>`case when scorecard is null then 0 else 1 end`.as('has_scorecard'))
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((r) => ({ ...r, has_scorecard: Number(r.has_scorecard) === 1 }));
  }

  /** The runs `ids` of user `userId` (others' are left out), whole (stored scorecards included), in no particular order. */
  async byIdsOwnedBy(ids: readonly string[], userId: string): Promise<BenchRunRecord[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('bench_runs')
      .selectAll()
      .where('id', 'in', ids)
      .where('user_id', '=', userId)
      .execute();
  }

  /** Stores a finished run's scorecard (JSON); a run that is not finished is left as it is. */
  async storeScorecard(id: string, scorecard: string): Promise<void> {
    await this.db
      .updateTable('bench_runs')
      .set({ scorecard })
      .where('id', '=', id)
      .where('status', 'in', ['completed', 'failed', 'cancelled'])
      .execute();
  }

  /** Deletes the run if it is still in `status` (compare-and-set); false otherwise. */
  async deleteIfStatus(id: string, status: BenchStatus): Promise<boolean> {
    const result = await this.db
      .deleteFrom('bench_runs')
      .where('id', '=', id)
      .where('status', '=', status)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  // ---- a model's baseline run (per user) -----------------------------------------------------

  async baselineOf(userId: string, modelKey: string): Promise<ModelBaselineRecord | undefined> {
    return this.db
      .selectFrom('model_baselines')
      .selectAll()
      .where('user_id', '=', userId)
      .where('model_id', '=', modelKey)
      .executeTakeFirst();
  }

  /** Sets (or replaces) the user's baseline run of a model. */
  async setBaseline(row: ModelBaselineRecord): Promise<void> {
    await this.db
      .insertInto('model_baselines')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['user_id', 'model_id']).doUpdateSet({ run_id: row.run_id, set_at: row.set_at }),
      )
      .execute();
  }

  async clearBaseline(userId: string, modelKey: string): Promise<void> {
    await this.db
      .deleteFrom('model_baselines')
      .where('user_id', '=', userId)
      .where('model_id', '=', modelKey)
      .execute();
  }

  // ---- the log -------------------------------------------------------------------------------

  /** A line of the run's log; the lines of its moves and its clips' are `bench-lifecycle.repository.ts`'s. */
  async appendLog(line: NewBenchLog): Promise<void> {
    await this.db.insertInto('bench_logs').values(line).execute();
  }

  async deleteLog(runId: string): Promise<void> {
    await this.db.deleteFrom('bench_logs').where('run_id', '=', runId).execute();
  }

  async logCount(runId: string): Promise<number> {
    return countRows(this.db.selectFrom('bench_logs').where('run_id', '=', runId));
  }

  /** A page of the run's log, oldest first. */
  async logPage(runId: string, limit: number, offset: number): Promise<BenchLogRecord[]> {
    return this.db
      .selectFrom('bench_logs')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('seq')
      .limit(limit)
      .offset(offset)
      .execute();
  }
}
