/**
 * A Bench run's way through its statuses outside the clip path: its owner's cancel, a runner's
 * first claim, failed attempts, the lease reaper and deregistered runners. Status moves follow
 * `domain/bench-state.ts`; the run moves on from its counters by the rules of
 * `domain/bench-advance.ts`; both are applied by `bench-lifecycle.repository.ts` with a
 * compare-and-set on the stored status, so two racing moves (a cancel and a completion) never both
 * win. (A delivered clip and a settled evaluation advance the run inside their own transactions:
 * `runner-task.service.ts`, `clip-evaluation.service.ts`.)
 */
import type { BenchLogLevel, BenchLogSource } from '../db/schema-bench.js';
import { checkTransition, isTerminalBenchStatus } from '../domain/bench-state.js';
import type { BenchStatus } from '../domain/bench-state.js';
import { conflict, notFound } from '../errors.js';
import type { Repositories } from '../repositories/index.js';

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
    const move = { from, to, ...options };
    const moved = await this.repos.transaction((tx) => tx.benchLifecycle.move(id, move, this.now()));
    if (!moved) {
      const current = await this.repos.benchRuns.statusOf(id);
      if (current === undefined) throw notFound('bench run');
      const again = checkTransition(current, to);
      throw conflict(
        `the run is ${current}, not ${from}${again.ok ? '; read it and try again' : `: ${again.reason}`}`,
      );
    }
    if (isTerminalBenchStatus(to)) await this.runEnded(id);
  }

  async appendLog(
    runId: string,
    source: BenchLogSource,
    level: BenchLogLevel,
    message: string,
  ): Promise<void> {
    await this.repos.benchLifecycle.appendLog({
      run_id: runId,
      time: this.now(),
      source,
      level,
      message,
    });
  }

  /**
   * Moves a run on when its tasks allow (`domain/bench-advance.ts`): no task pending or leased →
   * `evaluating`; no clip left to evaluate → `completed` (every dimension has a scored clip) or
   * `failed` (`no_scored_clips`). One transaction; safe to call at any time and from racing callers
   * (each move is a compare-and-set).
   */
  async advance(runId: string): Promise<void> {
    const ended = await this.repos.transaction((tx) => tx.benchLifecycle.advance(runId, this.now()));
    if (ended !== null) await this.runEnded(runId);
  }

  /** The run reached a terminal status: its scorecard is stored (a failure leaves it to the first read). */
  private async runEnded(runId: string): Promise<void> {
    await this.onRunEnded(runId).catch(() => undefined);
  }
}
