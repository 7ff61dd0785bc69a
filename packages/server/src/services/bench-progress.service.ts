/**
 * A Bench run's way through its statuses, driven by its owner (cancel), the runner protocol
 * (claims, failures, the lease reaper) and the evaluator (a clip's evaluation settled: its task is
 * `done` already and `advance` gets the run id — `clip-evaluation.service.ts`). Status moves
 * follow `domain/bench-state.ts` and are applied with a compare-and-set on the stored status, so
 * two racing moves (a cancel and a completion) never both win:
 * - the first claim → `generating`;
 * - no task pending or leased any more → `evaluating`;
 * - every accepted clip evaluated → `completed` when every dimension has at least one scored clip,
 *   else `failed` (`no_scored_clips`).
 */
import type { DimensionId } from '@vesta/engine';
import type { BenchLogLevel, BenchLogSource, BenchTaskState } from '../db/schema-bench.js';
import { checkTransition, isTerminalBenchStatus } from '../domain/bench-state.js';
import type { BenchStatus } from '../domain/bench-state.js';
import { AppError, conflict, notFound } from '../errors.js';
import type { BenchRunRecord, Repositories } from '../repositories/index.js';
import { parseJson, scoredClips } from './bench-views.js';

export interface BenchProgressServiceDeps {
  repos: Repositories;
  /**
   * Called once a run has reached a terminal status (its scorecard is final then and is stored);
   * a failure here leaves the move in place (the scorecard is then computed on the first read).
   */
  onRunEnded?: (runId: string) => Promise<void>;
  now?: () => number;
}

export class BenchProgressService {
  private readonly repos: Repositories;
  private readonly onRunEnded: (runId: string) => Promise<void>;
  private readonly now: () => number;

  constructor(deps: BenchProgressServiceDeps) {
    this.repos = deps.repos;
    this.onRunEnded = deps.onRunEnded ?? (() => Promise.resolve());
    this.now = deps.now ?? Date.now;
  }

  /**
   * Moves a run from `from` to `to` if the state machine allows it and the run is still in `from`
   * (compare-and-set); otherwise 409 `conflict`. Entering a terminal status cancels unfinished
   * tasks; `error` is stored when the run fails.
   */
  async transition(
    id: string,
    from: BenchStatus,
    to: BenchStatus,
    options: { message?: string; error?: { code: string; detail: string } } = {},
  ): Promise<void> {
    const check = checkTransition(from, to);
    if (!check.ok) throw conflict(check.reason);
    const now = this.now();
    const moved = await this.repos.transaction(async (tx) => {
      const changed = await tx.benchRuns.moveStatus(id, from, {
        status: to,
        updated_at: now,
        ...(from === 'queued' ? { started_at: now } : {}),
        ...(isTerminalBenchStatus(to) ? { finished_at: now } : {}),
        ...(options.error ? { error_code: options.error.code, error_detail: options.error.detail } : {}),
      });
      if (!changed) return false;
      await tx.benchRuns.appendLog({
        run_id: id,
        time: now,
        source: 'server',
        level: to === 'failed' ? 'error' : 'info',
        message: `${from} → ${to}${options.message ? `: ${options.message}` : ''}${options.error ? ` (${options.error.code}: ${options.error.detail})` : ''}`,
      });
      if (isTerminalBenchStatus(to)) await tx.benchTasks.cancelUnfinished(id, now);
      return true;
    });
    if (!moved) {
      const current = await this.repos.benchRuns.statusOf(id);
      if (current === undefined) throw notFound('bench run');
      const again = checkTransition(current, to);
      throw conflict(
        `the run is ${current}, not ${from}${again.ok ? '; read it and try again' : `: ${again.reason}`}`,
      );
    }
    if (isTerminalBenchStatus(to)) await this.onRunEnded(id).catch(() => undefined);
  }

  async appendLog(
    runId: string,
    source: BenchLogSource,
    level: BenchLogLevel,
    message: string,
  ): Promise<void> {
    await this.repos.benchRuns.appendLog({ run_id: runId, time: this.now(), source, level, message });
  }

  /**
   * Moves a run on when its tasks allow: no task pending or leased → `evaluating`; no clip left
   * to evaluate → `completed` (every dimension has a scored clip) or `failed` (`no_scored_clips`).
   * Safe to call at any time and from racing callers (each move is a compare-and-set). A caller
   * that read the run's row after its own change (in the transaction that made it) passes the row.
   */
  async advance(runOrId: string | BenchRunRecord): Promise<void> {
    const run = typeof runOrId === 'string' ? await this.repos.benchRuns.byId(runOrId) : runOrId;
    if (!run || isTerminalBenchStatus(run.status)) return;
    const runId = run.id;
    const n = (states: readonly BenchTaskState[]): number =>
      states.reduce((sum, state) => sum + run[`n_${state}`], 0);
    if (n(['pending', 'claimed']) > 0) return;
    let status = run.status;
    try {
      if (status === 'queued') {
        await this.transition(runId, 'queued', 'generating');
        status = 'generating';
      }
      if (status === 'generating') {
        await this.transition(runId, 'generating', 'evaluating', {
          message: `every clip generated (${n(['uploaded', 'evaluating', 'done'])} accepted, ${n(['failed'])} failed)`,
        });
        status = 'evaluating';
      }
      if (n(['uploaded', 'evaluating']) > 0) return;
      await this.finish(runId, parseJson<DimensionId[]>(run.dimensions, []), n(['done']), n(['failed']));
    } catch (e) {
      // Another caller moved the run first: nothing left to do here.
      if (e instanceof AppError && e.code === 'conflict') return;
      throw e;
    }
  }

  /** Every clip is accounted for: `completed` if every dimension has a scored clip, else `failed`. */
  private async finish(
    runId: string,
    dimensions: DimensionId[],
    done: number,
    failed: number,
  ): Promise<void> {
    const scored = scoredClips(await this.repos.benchTasks.scoredClipsOf(runId));
    const withScores = new Set(scored.map((c) => c.dimension));
    const missing = dimensions.filter((d) => !withScores.has(d));
    if (missing.length === 0) {
      await this.transition(runId, 'evaluating', 'completed', {
        message: `${done} clip(s) evaluated${failed > 0 ? `, ${failed} clip(s) failed` : ''}`,
      });
      return;
    }
    await this.transition(runId, 'evaluating', 'failed', {
      error: {
        code: 'no_scored_clips',
        detail: `no clip could be scored for ${missing.join(', ')} (${done} clip(s) evaluated, ${failed} clip(s) failed to generate); see GET /api/v1/bench/${runId}/videos and /logs`,
      },
    });
  }
}
