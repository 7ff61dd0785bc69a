/**
 * The Bench run aggregate's lifecycle — the run's row, its tasks, the clips minted for them and its
 * log — as its use cases change it: a runner's delivery of a task's clip, a clip's evaluation
 * settling, the run's status moves and its advance. One repository, so that each use case is one
 * visit inside one transaction (`Repositories.transaction`); the aggregate's other reads and writes
 * (run pages, claims and leases) are `bench-runs.repository.ts` and `bench-tasks.repository.ts`.
 *
 * Every state change is a move of the domain's transition tables (`TASK_MOVES`, `VIDEO_MOVES`,
 * `BENCH_TRANSITIONS`) applied as a compare-and-set; a leased task's also on its lease id (the
 * fencing token). Moving a task updates its run's counters in the same statement (triggers,
 * migration 0004), so the run's row read after a move in the same transaction counts it.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { BenchLogsTable, BenchRunsTable, BenchTasksTable } from '../db/schema-bench.js';
import { advanceOf, finishMove } from '../domain/bench-advance.js';
import type { RunMove } from '../domain/bench-advance.js';
import { moveLine } from '../domain/bench-advance.js';
import { isTerminalBenchStatus } from '../domain/bench-state.js';
import type { BenchStatus } from '../domain/bench-state.js';
import { TASK_MOVES } from '../domain/clip-lifecycle.js';
import type { BenchTaskState } from '../domain/clip-lifecycle.js';
import type { VideosTable } from '../db/schema.js';
import { confirmVideo, markVideoArrived } from './clip-statements.js';
import type { ArrivedVideo, ConfirmedVideo } from './clip-statements.js';
import { ownedRead } from './owned.js';
import type { Owned } from './owned.js';

type RunRow = Selectable<BenchRunsTable>;
type TaskRow = Selectable<BenchTasksTable>;
/** A log line to append (its `seq` is given by the database). */
type NewLogLine = Omit<Selectable<BenchLogsTable>, 'seq'>;

/** A leased task's clip delivered: what `deliver` writes. */
export interface Delivery {
  taskId: string;
  /** The lease the delivery is made under (the fencing token). */
  leaseId: string;
  videoId: string;
  at: number;
  /** The verified clip's confirm; null when it was confirmed before (its evaluation is queued). */
  clip: { arrived: ArrivedVideo | null; confirmed: ConfirmedVideo } | null;
}

/** What a delivery did: `queued`, the clip was confirmed by it (its evaluation is to be enqueued). */
export type DeliveryOutcome =
  | { delivered: true; queued: boolean }
  /** The lease ended meanwhile: nothing written; the task's state now. */
  | { delivered: false; state: BenchTaskState | undefined };

/** The task a settled clip belonged to (what the evaluator's log line names). */
export type SettledTask = Pick<TaskRow, 'id' | 'run_id' | 'seq' | 'sample_index' | 'prompt_id'>;

export class BenchLifecycleRepository {
  constructor(private readonly db: Db) {}

  // ---- the runner's task ---------------------------------------------------------------------

  /** The task `id` with its run, as user `owner` may see them (`Owned`: the run's owner). */
  async ownedTaskWithRun(id: string, owner: string): Promise<Owned<{ task: TaskRow; run: RunRow }>> {
    const task = await this.db.selectFrom('bench_tasks').selectAll().where('id', '=', id).executeTakeFirst();
    if (!task) return { kind: 'none' };
    const run = await this.db
      .selectFrom('bench_runs')
      .selectAll()
      .where('id', '=', task.run_id)
      .executeTakeFirst();
    return ownedRead(run && { task, run }, (r) => r.run.user_id, owner);
  }

  /** The video `id` if it was minted for task `taskId` (`bench_task_videos`). */
  async mintedClip(id: string, taskId: string): Promise<VideosTable | undefined> {
    return this.db
      .selectFrom('videos')
      .innerJoin('bench_task_videos as m', 'm.video_id', 'videos.id')
      .selectAll('videos')
      .where('videos.id', '=', id)
      .where('m.task_id', '=', taskId)
      .executeTakeFirst();
  }

  /**
   * The leased task delivered its clip: the task `claimed → evaluating` with it (a compare-and-set
   * on the lease) and, for a clip verified now, the video `uploaded → queued` (`arrived` first for
   * a direct upload). Nothing is written when the lease ended meanwhile.
   */
  async deliver(d: Delivery): Promise<DeliveryOutcome> {
    const moved = await this.db
      .updateTable('bench_tasks')
      .set({
        state: TASK_MOVES.deliver.to[0],
        video_id: d.videoId,
        lease_expires_at: null,
        error_code: null,
        error_detail: null,
        updated_at: d.at,
      })
      .where('id', '=', d.taskId)
      .where('lease_id', '=', d.leaseId)
      .where('state', 'in', TASK_MOVES.deliver.from)
      .executeTakeFirst();
    if (moved.numUpdatedRows === 0n) {
      const now = await this.db
        .selectFrom('bench_tasks')
        .select('state')
        .where('id', '=', d.taskId)
        .executeTakeFirst();
      return { delivered: false, state: now?.state };
    }
    if (d.clip === null) return { delivered: true, queued: false };
    if (d.clip.arrived) await markVideoArrived(this.db, d.videoId, d.clip.arrived);
    return { delivered: true, queued: await confirmVideo(this.db, d.videoId, d.clip.confirmed) };
  }

  // ---- a clip's evaluation settles -------------------------------------------------------------

  /**
   * The clip's evaluation settled: its task becomes `done` (with the scoring's error, if any), if
   * it is still settling. The task, or undefined when the clip has none settling (not a Bench clip).
   */
  async settleTask(
    videoId: string,
    at: number,
    error: { code: string; detail: string } | null,
  ): Promise<SettledTask | undefined> {
    return this.db
      .updateTable('bench_tasks')
      .set({
        state: TASK_MOVES.settle.to[0],
        updated_at: at,
        error_code: error?.code ?? null,
        error_detail: error?.detail ?? null,
      })
      .where('video_id', '=', videoId)
      .where('state', 'in', TASK_MOVES.settle.from)
      .returning(['id', 'run_id', 'seq', 'sample_index', 'prompt_id'])
      .executeTakeFirst();
  }

  // ---- the run's log -------------------------------------------------------------------------

  async appendLog(line: NewLogLine): Promise<void> {
    await this.db.insertInto('bench_logs').values(line).execute();
  }

  async appendLogs(lines: readonly NewLogLine[]): Promise<void> {
    if (lines.length === 0) return;
    await this.db.insertInto('bench_logs').values(lines).execute();
  }

  // ---- the run's moves -----------------------------------------------------------------------

  /**
   * Applies one status move if the run is still in `move.from` (compare-and-set) and logs it;
   * entering a terminal status cancels the run's unfinished tasks. False when the run was not in
   * `move.from`. (The caller checked the move against `BENCH_TRANSITIONS`.)
   */
  async move(runId: string, move: RunMove, at: number): Promise<boolean> {
    const terminal = isTerminalBenchStatus(move.to);
    const changed = await this.db
      .updateTable('bench_runs')
      .set({
        status: move.to,
        updated_at: at,
        ...(move.from === 'queued' ? { started_at: at } : {}),
        ...(terminal ? { finished_at: at } : {}),
        ...(move.error ? { error_code: move.error.code, error_detail: move.error.detail } : {}),
      })
      .where('id', '=', runId)
      .where('status', '=', move.from)
      .executeTakeFirst();
    if (changed.numUpdatedRows === 0n) return false;
    await this.appendLog({ run_id: runId, time: at, source: 'server', ...moveLine(move) });
    if (terminal)
      await this.db
        .updateTable('bench_tasks')
        .set({ state: TASK_MOVES.cancel.to[0], lease_expires_at: null, updated_at: at })
        .where('run_id', '=', runId)
        .where('state', 'in', TASK_MOVES.cancel.from)
        .execute();
    return true;
  }

  /**
   * Moves the run on as its counters allow (`domain/bench-advance.ts`), reading its row as this
   * transaction sees it. Returns the terminal status it entered, or null (nothing to do, or a
   * racing caller moved it first: every move is a compare-and-set).
   */
  async advance(runId: string, at: number): Promise<BenchStatus | null> {
    const run = await this.db.selectFrom('bench_runs').selectAll().where('id', '=', runId).executeTakeFirst();
    if (!run) return null;
    const { moves, finish } = advanceOf(run);
    for (const move of moves) if (!(await this.move(runId, move, at))) return null;
    if (!finish) return null;
    const dimensions = JSON.parse(run.dimensions) as string[];
    const last = finishMove(run, dimensions, await this.scoredDimensions(runId));
    return (await this.move(runId, last, at)) ? last.to : null;
  }

  /** The dimensions with at least one score of an evaluated (`done`) clip that its task asked for. */
  private async scoredDimensions(runId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('bench_tasks')
      .innerJoin('scores', 'scores.video_id', 'bench_tasks.video_id')
      .select(['bench_tasks.dimensions as task_dimensions', 'scores.dimension'])
      .distinct()
      .where('bench_tasks.run_id', '=', runId)
      .where('bench_tasks.state', '=', 'done')
      .execute();
    const scored = new Set<string>();
    for (const r of rows)
      if ((JSON.parse(r.task_dimensions) as string[]).includes(r.dimension)) scored.add(r.dimension);
    return scored;
  }
}
