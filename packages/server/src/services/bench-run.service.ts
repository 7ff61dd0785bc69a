/**
 * Bench runs as their owner sees them: create, list, read, cancel, delete, and the per-run reads
 * (clips, scorecard, log). The run's way through its statuses after that (claims, evaluations) is
 * `bench-progress.service.ts`.
 *
 * - create → `queued`, with the generation tasks `bench-run-plan.ts` plans from the prompt suite;
 * - cancel: from any non-terminal status; delete: only a finished run.
 */
import { PROMPT_SUITE_VERSION } from '@vesta/engine';
import type { DimensionId, DimensionInfo } from '@vesta/engine';
import { checkDelete, isTerminalBenchStatus } from '../domain/bench-state.js';
import type {
  BenchLogView,
  BenchRunView,
  BenchScorecardView,
  BenchVideoView,
  CreateBenchRunInput,
  PageOf,
  PageRequest,
} from '../domain/views/bench.js';
import { conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { BenchRunHead, BenchRunRecord, Repositories } from '../repositories/index.js';
import type { BenchProgressService } from './bench-progress.service.js';
import { planBenchRun } from './bench-run-plan.js';
import { scorecardCsv } from './bench-scorecard.js';
import { keptScorecardView, scorecardView, storedScorecardView } from './bench-scorecard.service.js';
import type { BenchScorecardService } from './bench-scorecard.service.js';
import { byVideo, logView, pageOf, parseJson, progressOf, runView, taskVideoView } from './bench-views.js';
import type { RunNotices } from './bench-views.js';
import { resolveModelKey } from './model-keys.js';
import { ownRow } from './ownership.js';
import { promptNotice, unscorableNow, unscoredByFailure } from './prompt-notice.js';

export interface BenchRunServiceDeps {
  repos: Repositories;
  blobs: BlobStore;
  jobs: JobQueue;
  /** Moves runs through their statuses (cancel goes through it). */
  progress: BenchProgressService;
  /** Scorecards with intervals (a finished run's is stored). */
  scorecards: BenchScorecardService;
  /** The dimension registry with this server's method availability. */
  dimensions: () => readonly DimensionInfo[];
  /** Attempts of a generation task before it fails for good. */
  maxAttempts?: number;
  /** Called when tasks may have become claimable (wakes long-polling runners). */
  onTasksAvailable?: () => void;
  now?: () => number;
}

export class BenchRunService {
  private readonly repos: Repositories;
  private readonly blobs: BlobStore;
  private readonly jobs: JobQueue;
  private readonly progress: BenchProgressService;
  private readonly scorecards: BenchScorecardService;
  private readonly registry: () => readonly DimensionInfo[];
  private readonly maxAttempts: number;
  private readonly onTasksAvailable: () => void;
  private readonly now: () => number;

  constructor(deps: BenchRunServiceDeps) {
    this.repos = deps.repos;
    this.blobs = deps.blobs;
    this.jobs = deps.jobs;
    this.progress = deps.progress;
    this.scorecards = deps.scorecards;
    this.registry = deps.dimensions;
    this.maxAttempts = deps.maxAttempts ?? 3;
    this.onTasksAvailable = deps.onTasksAvailable ?? (() => undefined);
    this.now = deps.now ?? Date.now;
  }

  async create(userId: string, input: CreateBenchRunInput): Promise<BenchRunView> {
    const dimensions = this.checkDimensions(input.dimensions);
    // Another user's private model answers exactly as an id nobody declared (`model-keys.ts`).
    const modelKey = await resolveModelKey(this.repos.models, userId, input.model_id);
    if (modelKey === undefined) {
      throw validationFailed(`unknown model_id '${input.model_id}'; GET /api/v1/models lists the models`);
    }
    const runnerId = input.runner_id ?? null;
    if (runnerId !== null) {
      const runner = await this.repos.runners.servingModel(userId, runnerId, modelKey);
      if (!runner)
        throw validationFailed(
          `unknown runner_id '${runnerId}' (not one of your registered runners); leave it out to let any of your runners serving the model take the run`,
        );
      if (runner.model_id === null) {
        throw validationFailed(`runner '${runnerId}' does not serve model '${input.model_id}'`);
      }
    }
    const now = this.now();
    const { row, tasks, prompts } = planBenchRun({
      userId,
      input,
      modelKey,
      runnerId,
      dimensions,
      now,
      maxAttempts: this.maxAttempts,
    });
    await this.repos.transaction(async (tx) => {
      await tx.benchRuns.insert(row);
      // The run's holder: videos hang off a row of `sessions`; this one is never current, never reset.
      await tx.sessions.insert({
        id: row.id,
        user_id: userId,
        kind: 'bench',
        prompt: null,
        created_at: now,
        retired_at: now,
        active: null,
      });
      await tx.benchTasks.insertMany(tasks);
      await tx.benchRuns.appendLog({
        run_id: row.id,
        time: now,
        source: 'server',
        level: 'info',
        message: `run created: model ${input.model_id}, ${dimensions.length} dimension(s): ${dimensions.join(', ')}${runnerId ? `, runner ${runnerId}` : ''}; ${tasks.length} clip(s) to generate (${prompts} prompt(s) of suite ${PROMPT_SUITE_VERSION} × ${row.samples_per_prompt} sample(s))`,
      });
    });
    this.onTasksAvailable();
    return runView(row, progressOf({ ...row, n_pending: tasks.length }), null, await this.notices(row, null));
  }

  /** Known, usable on Bench, with a method available on this server; VBench's order, no repeats. */
  private checkDimensions(requested: readonly string[]): DimensionId[] {
    const registry = this.registry();
    const seen = new Set<string>();
    for (const id of requested) {
      if (seen.has(id)) throw validationFailed(`dimensions lists '${id}' twice`);
      seen.add(id);
      const info = registry.find((d) => d.id === id);
      if (!info)
        throw validationFailed(`unknown dimension '${id}'; GET /api/v1/dimensions lists the dimensions`);
      if (!info.workflows.includes('bench'))
        throw validationFailed(`dimension '${id}' is not evaluated by Bench runs`);
      if (info.defaultMethod === null) {
        const reasons = info.methods
          .map((m) => `${m.id}: ${m.unavailableReason ?? 'unavailable'}`)
          .join('; ');
        throw validationFailed(`dimension '${id}' has no method available on this server (${reasons})`);
      }
    }
    return registry.filter((d) => seen.has(d.id)).map((d) => d.id);
  }

  async list(userId: string, { page, limit }: PageRequest): Promise<PageOf<BenchRunView>> {
    const total = await this.repos.benchRuns.countOf(userId);
    // A page shows the scorecards runs already store; none is computed here. The rows are read
    // without them: a stored scorecard already parsed is kept (`keptScorecardView`), and only the
    // rows that hold one not kept yet (met for the first time) are read whole.
    const heads = await this.repos.benchRuns.headPageOf(userId, limit, (page - 1) * limit);
    const unkept = heads.filter((h) => h.has_scorecard && !keptScorecardView(h)).map((h) => h.id);
    const whole = new Map((await this.repos.benchRuns.byIdsOwnedBy(unkept, userId)).map((r) => [r.id, r]));
    const views: BenchRunView[] = [];
    const registry = this.registry();
    for (const { has_scorecard, ...head } of heads) {
      const full = whole.get(head.id);
      const row: BenchRunHead = full ?? head;
      const card = full ? storedScorecardView(full) : has_scorecard ? keptScorecardView(head) : null;
      views.push(runView(row, progressOf(row), card, await this.notices(row, card, registry)));
    }
    return pageOf(views, total, { page, limit });
  }

  /**
   * The run with its progress and, once it has ended, its scorecard: `GET /api/v1/bench/{id}` is
   * what clients poll, so it is one primary-key lookup of a query compiled once; the progress
   * comes from the per-state task counters that triggers keep on the run's row (migration
   * `0004-bench-progress`), the scorecard was stored on the row when the run ended.
   */
  async get(userId: string, id: string): Promise<BenchRunView> {
    // What clients poll: the row without its stored scorecard (~8 kB of JSON) first. A live run
    // has none; a finished one whose parsed scorecard is kept needs no more. Otherwise (a
    // finished run met for the first time) the whole row, whose scorecard is then kept.
    const head = ownRow(await this.repos.benchRuns.headOwnedBy(id, userId), {
      none: () => notFound('bench run'),
      other: () => forbidden('this bench run belongs to another user'),
    });
    if (!isTerminalBenchStatus(head.status))
      return runView(head, progressOf(head), null, await this.notices(head, null));
    const kept = keptScorecardView(head);
    if (kept) return runView(head, progressOf(head), kept, await this.notices(head, kept));
    const row = await this.owned(userId, id);
    const card = await this.scorecards.finalView(row);
    return runView(row, progressOf(row), card, await this.notices(row, card));
  }

  /**
   * What the run says about the prompt and about its dimensions that could not be scored (issue
   * #24 item 6): a dimension with no method on this server now (its models are missing), and,
   * once the run has ended, one with no scored clip whose clips' failures say why (the one query
   * made only then). No query for a run still going.
   */
  private async notices(
    row: BenchRunHead,
    card: BenchScorecardView | null,
    registry: readonly DimensionInfo[] = this.registry(),
  ): Promise<RunNotices> {
    const requested = parseJson<string[]>(row.dimensions, []);
    const unscored = requested.flatMap((d) => {
      const u = unscorableNow(registry, d);
      return u ? [u] : [];
    });
    const withoutScore = (card?.dimensions ?? [])
      .filter((d) => d.clips === 0 && !unscored.some((u) => u.dimension === d.dimension))
      .map((d) => d.dimension);
    if (withoutScore.length > 0) {
      const failed = await this.repos.benchTasks.failedDimensionsOf(row.id, withoutScore);
      for (const dimension of withoutScore) {
        const first = failed.find((f) => f.dimension === dimension);
        if (first) unscored.push(unscoredByFailure(registry, dimension, first));
      }
      unscored.sort((a, b) => requested.indexOf(a.dimension) - requested.indexOf(b.dimension));
    }
    const scored = card
      ? card.dimensions.filter((d) => d.clips > 0).map((d) => d.dimension)
      : requested.filter((d) => !unscored.some((u) => u.dimension === d));
    return {
      // A Bench run's clips are made from the suite's prompts: the run always has prompts.
      prompt_notice: promptNotice(registry, 'bench', row.suite_version ?? 'suite', scored, requested),
      unscored_dimensions: unscored,
    };
  }

  /** The scorecard with intervals: stored once the run has ended, else from the clips scored so far. */
  async scorecard(userId: string, id: string): Promise<BenchScorecardView> {
    const row = await this.owned(userId, id);
    const final = await this.scorecards.finalView(row);
    return final ?? scorecardView(await this.scorecards.compute(row), false);
  }

  /** Cancel: from any non-terminal status; unfinished tasks are cancelled and their evaluations stopped. */
  async cancel(userId: string, id: string): Promise<BenchRunView> {
    const row = await this.owned(userId, id);
    const pendingVideos = await this.repos.benchTasks.unfinishedClips(id);
    await this.progress.transition(id, row.status, 'cancelled', {
      message: 'run cancelled by its owner',
    });
    for (const videoId of pendingVideos) await this.jobs.cancelBySubject(`video:${videoId}`);
    return this.get(userId, id);
  }

  /** Delete: only a finished run (409 otherwise); removes its tasks, logs, clips and their blobs. */
  async delete(userId: string, id: string): Promise<void> {
    const row = await this.owned(userId, id);
    const check = checkDelete(row.status);
    if (!check.ok) throw conflict(check.reason);
    // Every clip minted for the run (completed or not) lives in the run's holder.
    const clips = await this.repos.videos.blobsOfSession(id);
    const deleted = await this.repos.transaction(async (tx) => {
      if (!(await tx.benchRuns.deleteIfStatus(id, row.status))) return false;
      await tx.benchRuns.deleteLog(id);
      await tx.benchTasks.deleteOfRun(id);
      // Videos (and their scores) go with the run's holder.
      await tx.videos.deleteOfSession(id);
      await tx.sessions.deleteHolderOfRun(id);
      return true;
    });
    if (!deleted) throw conflict('the run changed state while it was being deleted; read it and try again');
    // Blobs go after the rows: a crash in between leaves unreferenced bytes, never a row without bytes.
    for (const clip of clips) await this.blobs.delete(clip.blob_key);
  }

  async videos(userId: string, id: string, { page, limit }: PageRequest): Promise<PageOf<BenchVideoView>> {
    // The run's task count is on its row (the per-state counters): no count query.
    const run = await this.owned(userId, id);
    const tasks = await this.repos.benchTasks.pageOfRun(id, limit, (page - 1) * limit);
    const videoIds = tasks.flatMap((t) => (t.video_id === null ? [] : [t.video_id]));
    const scores = videoIds.length === 0 ? [] : await this.repos.videos.scoreSummariesOf(videoIds);
    const failures = videoIds.length === 0 ? [] : await this.repos.videos.failureSummariesOf(videoIds);
    const scoresOf = byVideo(scores);
    const failuresOf = byVideo(failures);
    return pageOf(
      tasks.map((t) => taskVideoView(t, scoresOf.get(t.video_id) ?? [], failuresOf.get(t.video_id) ?? [])),
      progressOf(run).tasks_total,
      { page, limit },
    );
  }

  /** The scorecard CSV (see `bench-scorecard.ts` for the header and rows); readable in any status. */
  async csv(userId: string, id: string): Promise<string> {
    const row = await this.owned(userId, id);
    return scorecardCsv((await this.scorecards.final(row)) ?? (await this.scorecards.compute(row)));
  }

  async logs(userId: string, id: string, { page, limit }: PageRequest): Promise<PageOf<BenchLogView>> {
    await this.owned(userId, id);
    const total = await this.repos.benchRuns.logCount(id);
    const rows = await this.repos.benchRuns.logPage(id, limit, (page - 1) * limit);
    return pageOf(rows.map(logView), total, { page, limit });
  }

  /** 404 when the run does not exist, 403 when it is another user's. */
  private async owned(userId: string, id: string): Promise<BenchRunRecord> {
    return ownRow(await this.repos.benchRuns.ownedBy(id, userId), {
      none: () => notFound('bench run'),
      other: () => forbidden('this bench run belongs to another user'),
    });
  }
}
