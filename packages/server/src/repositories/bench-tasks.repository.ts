/**
 * A Bench run's generation tasks (one clip each: prompt × sample): planning, pages, claims and
 * leases, and the clips minted for them. Part of the Bench run aggregate with
 * `bench-runs.repository.ts`; a delivered clip's and a settled clip's moves, with the run's, are
 * `bench-lifecycle.repository.ts`. Inserting, deleting or moving a
 * task updates its run's progress counters in the same statement (triggers, migration 0004). Every
 * move of a leased task is a compare-and-set on its state and lease id (the fencing token). Every
 * state change is a move of `domain/clip-lifecycle.ts` (`TASK_MOVES`): its sources are the
 * compare-and-set's, its target what is written.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import { dialectOf } from '../db/dialect.js';
import type { BenchTasksTable } from '../db/schema-bench.js';
import { TASK_MOVES, UNFINISHED_TASK_STATES } from '../domain/clip-lifecycle.js';
import type { BenchTaskState } from '../domain/clip-lifecycle.js';
import { countRows } from './count-rows.js';

/** A stored task. */
export type BenchTaskRecord = Selectable<BenchTasksTable>;

/** One score of an evaluated clip of a run, with the task fields the statistics group it by. */
export interface ScoredClipRow {
  task_dimensions: string;
  prompt_id: string | null;
  prompt: string;
  clip_group: string | null;
  sample_index: number;
  video_id: string;
  dimension: string;
  value: number;
  method: string;
  method_version: string;
}

/** Rows per INSERT when a run's tasks are planned. */
const INSERT_BATCH = 200;

/** The runner a claim is for. */
export interface ClaimingRunner {
  id: string;
  user_id: string;
}

/** How an attempt ended (`fail`, or verification refused the clip). */
export interface AttemptEnd {
  state: (typeof TASK_MOVES.endAttempt.to)[number];
  lease_id: string | null;
  error_code: string;
  error_detail: string;
  updated_at: number;
}

/** How an expired lease ends. */
export interface LeaseExpiry extends AttemptEnd {
  lease_expiries: number;
}

export class BenchTaskRepository {
  constructor(private readonly db: Db) {}

  async byId(id: string): Promise<BenchTaskRecord | undefined> {
    return this.db.selectFrom('bench_tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async stateOf(id: string): Promise<BenchTaskState | undefined> {
    const row = await this.db
      .selectFrom('bench_tasks')
      .select('state')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.state;
  }

  /** Inserts a run's planned tasks (in batches). */
  async insertMany(tasks: readonly BenchTaskRecord[]): Promise<void> {
    for (let i = 0; i < tasks.length; i += INSERT_BATCH) {
      await this.db
        .insertInto('bench_tasks')
        .values(tasks.slice(i, i + INSERT_BATCH))
        .execute();
    }
  }

  /** A page of the run's tasks, in task order. */
  async pageOfRun(runId: string, limit: number, offset: number): Promise<BenchTaskRecord[]> {
    return this.db
      .selectFrom('bench_tasks')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('seq')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The clips of the run's unfinished tasks (whose evaluations a cancel stops). */
  async unfinishedClips(runId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('bench_tasks')
      .select('video_id')
      .where('run_id', '=', runId)
      .where('state', 'in', UNFINISHED_TASK_STATES)
      .where('video_id', 'is not', null)
      .execute();
    return rows.flatMap((r) => (r.video_id === null ? [] : [r.video_id]));
  }

  async deleteOfRun(runId: string): Promise<void> {
    await this.db.deleteFrom('bench_tasks').where('run_id', '=', runId).execute();
  }

  /**
   * The scores of the run's evaluated (`done`) clips, each with its task's prompt, clip group,
   * sample index and the dimensions it serves (JSON text): what the scorecard averages and the
   * comparison matches, once filtered to those dimensions.
   */
  async scoredClipsOf(runId: string): Promise<ScoredClipRow[]> {
    return this.db
      .selectFrom('bench_tasks')
      .innerJoin('scores', 'scores.video_id', 'bench_tasks.video_id')
      .select([
        'bench_tasks.dimensions as task_dimensions',
        'bench_tasks.prompt_id',
        'bench_tasks.prompt',
        'bench_tasks.clip_group',
        'bench_tasks.sample_index',
        'scores.video_id',
        'scores.dimension',
        'scores.value',
        'scores.method',
        'scores.method_version',
      ])
      .where('bench_tasks.run_id', '=', runId)
      .where('bench_tasks.state', '=', 'done')
      .execute();
  }

  /**
   * The failures recorded on the run's evaluated clips for `dimensions`, one row per dimension and
   * code (one detail of them): why a dimension a run asked for has no score.
   */
  async failedDimensionsOf(
    runId: string,
    dimensions: readonly string[],
  ): Promise<Array<{ dimension: string; code: string; detail: string }>> {
    if (dimensions.length === 0) return [];
    return this.db
      .selectFrom('bench_tasks')
      .innerJoin('score_failures', 'score_failures.video_id', 'bench_tasks.video_id')
      .select((eb) => [
        'score_failures.dimension',
        'score_failures.code',
        eb.fn.min('score_failures.detail').as('detail'),
      ])
      .where('bench_tasks.run_id', '=', runId)
      .where('score_failures.dimension', 'in', dimensions)
      .groupBy(['score_failures.dimension', 'score_failures.code'])
      .orderBy('score_failures.dimension')
      .orderBy('score_failures.code')
      .execute();
  }

  // ---- claims and leases ---------------------------------------------------------------------

  /** How many tasks the runner holds now. */
  async heldCount(runnerId: string): Promise<number> {
    return countRows(
      this.db.selectFrom('bench_tasks').where('runner_id', '=', runnerId).where('state', '=', 'claimed'),
    );
  }

  /**
   * The next task the runner may take: pending, of its user's runs that are queued or generating,
   * whose model it serves and that name no runner or name it; oldest run first, then task order.
   * On PostgreSQL (claims run side by side there) the task is locked, and one another claim holds
   * is skipped (`FOR UPDATE SKIP LOCKED`); run it inside the claim's transaction.
   */
  async nextClaimable(runner: ClaimingRunner): Promise<string | undefined> {
    const postgres = dialectOf(this.db) === 'postgres';
    const next = await this.db
      .selectFrom('bench_tasks as t')
      .innerJoin('bench_runs as r', 'r.id', 't.run_id')
      .select('t.id')
      .where('t.state', '=', 'pending')
      .where('r.user_id', '=', runner.user_id)
      .where('r.status', 'in', ['queued', 'generating'])
      .where('r.model_id', 'in', (eb) =>
        eb.selectFrom('runner_models').select('model_id').where('runner_id', '=', runner.id),
      )
      .where((eb) => eb.or([eb('r.runner_id', 'is', null), eb('r.runner_id', '=', runner.id)]))
      .orderBy('r.created_at')
      .orderBy('t.seq')
      .limit(1)
      .$if(postgres, (qb) => qb.forUpdate(['t']).skipLocked())
      .executeTakeFirst();
    return next?.id;
  }

  /** Leases a pending task to the runner (one more attempt); the task, or undefined when it was taken. */
  async lease(
    taskId: string,
    runnerId: string,
    lease: { id: string; expiresAt: number },
    at: number,
  ): Promise<BenchTaskRecord | undefined> {
    return this.db
      .updateTable('bench_tasks')
      .set((eb) => ({
        state: TASK_MOVES.lease.to[0],
        runner_id: runnerId,
        attempts: eb('attempts', '+', 1),
        lease_id: lease.id,
        lease_expires_at: lease.expiresAt,
        updated_at: at,
      }))
      .where('id', '=', taskId)
      .where('state', 'in', TASK_MOVES.lease.from)
      .returningAll()
      .executeTakeFirst();
  }

  /** Renews the lease if it is still the task's current one; false otherwise. */
  async renewLease(taskId: string, leaseId: string, expiresAt: number, at: number): Promise<boolean> {
    const renewed = await this.db
      .updateTable('bench_tasks')
      .set({ lease_expires_at: expiresAt, updated_at: at })
      .where('id', '=', taskId)
      .where('lease_id', '=', leaseId)
      .where('state', '=', 'claimed')
      .executeTakeFirst();
    return renewed.numUpdatedRows > 0n;
  }

  /** Ends the current attempt (back to `pending`, or `failed`) if the lease is still current. */
  async endAttempt(taskId: string, leaseId: string, end: AttemptEnd): Promise<boolean> {
    const moved = await this.db
      .updateTable('bench_tasks')
      .set({
        state: end.state,
        lease_id: end.lease_id,
        lease_expires_at: null,
        error_code: end.error_code,
        error_detail: end.error_detail,
        updated_at: end.updated_at,
      })
      .where('id', '=', taskId)
      .where('lease_id', '=', leaseId)
      .where('state', 'in', TASK_MOVES.endAttempt.from)
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  }

  /** Claimed tasks whose lease ran out before `at`. */
  async expiredLeases(at: number): Promise<BenchTaskRecord[]> {
    return this.db
      .selectFrom('bench_tasks')
      .selectAll()
      .where('state', '=', 'claimed')
      .where('lease_expires_at', '<', at)
      .execute();
  }

  /** Ends an expired lease if it is still the task's current one; false otherwise. */
  async expireLease(taskId: string, leaseId: string | null, expiry: LeaseExpiry): Promise<boolean> {
    const moved = await this.db
      .updateTable('bench_tasks')
      .set({
        state: expiry.state,
        lease_id: expiry.lease_id,
        lease_expires_at: null,
        lease_expiries: expiry.lease_expiries,
        error_code: expiry.error_code,
        error_detail: expiry.error_detail,
        updated_at: expiry.updated_at,
      })
      .where('id', '=', taskId)
      .where('state', 'in', TASK_MOVES.endAttempt.from)
      .where('lease_id', '=', leaseId)
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  }

  /** The tasks a runner holds (`claimed`). */
  async heldBy(runnerId: string): Promise<Array<Pick<BenchTaskRecord, 'id' | 'run_id' | 'seq'>>> {
    return this.db
      .selectFrom('bench_tasks')
      .select(['id', 'run_id', 'seq'])
      .where('runner_id', '=', runnerId)
      .where('state', '=', 'claimed')
      .execute();
  }

  /** The runner's tasks go back to the queue; the attempt does not count. */
  async requeueHeldBy(runnerId: string, at: number): Promise<void> {
    await this.db
      .updateTable('bench_tasks')
      .set((eb) => ({
        state: TASK_MOVES.release.to[0],
        attempts: eb('attempts', '-', 1),
        lease_id: null,
        lease_expires_at: null,
        runner_id: null,
        updated_at: at,
      }))
      .where('runner_id', '=', runnerId)
      .where('state', 'in', TASK_MOVES.release.from)
      .execute();
  }

  // ---- clips minted for a task ---------------------------------------------------------------

  async recordMinted(videoId: string, taskId: string, at: number): Promise<void> {
    await this.db
      .insertInto('bench_task_videos')
      .values({ video_id: videoId, task_id: taskId, created_at: at })
      .execute();
  }
}
