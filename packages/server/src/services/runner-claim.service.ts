/**
 * A runner's claim of a Bench task: registered runners (`runner.service.ts`) long-poll for the next
 * task they may generate; what they do with it under its lease is `runner-task.service.ts`.
 *
 * - A runner claims only tasks of its user's runs whose model it serves, and whose run names no
 *   runner or names it, up to its `max_concurrency` tasks held at once.
 * - A claim takes one pending task with a lease (`lease.id` is the fencing token; TTL from the
 *   server's config); the run's first claim moves it `queued → generating`.
 */
import { randomUUID } from 'node:crypto';
import type { RunnerTaskView } from '../domain/views/runners.js';
import { AppError, notFound } from '../errors.js';
import type { BenchRunRecord, BenchTaskRecord, Repositories, RunnerRecord } from '../repositories/index.js';
import type { BenchProgressService } from './bench-progress.service.js';
import type { RunnerService } from './runner.service.js';
import { taskView } from './runner-task-view.js';
import type { TaskNotifier } from './task-notifier.js';

export interface RunnerClaimServiceDeps {
  repos: Repositories;
  runners: RunnerService;
  progress: BenchProgressService;
  notifier: TaskNotifier;
  leaseSeconds: number;
  now?: () => number;
}

export class RunnerClaimService {
  private readonly leaseMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: RunnerClaimServiceDeps) {
    this.leaseMs = deps.leaseSeconds * 1000;
    this.now = deps.now ?? Date.now;
  }

  /**
   * Long-poll: the next task this runner may take, or null when none arrived within `waitSeconds`
   * (or the server is shutting down, or the caller went away). Wakes as soon as a task may have
   * become claimable in this process.
   */
  async claim(
    userId: string,
    runnerId: string,
    waitSeconds: number,
    signal?: AbortSignal,
  ): Promise<RunnerTaskView | null> {
    const runner = await this.deps.runners.owned(userId, runnerId);
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      const ticket = this.deps.notifier.ticket();
      // Deregistered while waiting: the runner is gone.
      if (!(await this.deps.runners.touch(runner.id))) throw notFound('runner');
      const claimed = await this.tryClaim(runner);
      if (claimed) {
        const run = await this.runOf(claimed.run_id);
        if (run.status === 'queued') {
          try {
            await this.deps.progress.transition(run.id, 'queued', 'generating', {
              message: `runner ${runner.name} (${runner.id}) claimed the first clip`,
            });
          } catch (e) {
            if (!(e instanceof AppError && e.code === 'conflict')) throw e;
          }
        }
        await this.deps.progress.appendLog(
          run.id,
          'server',
          'info',
          `clip #${claimed.seq} (${claimed.prompt_id ?? 'prompt'}, sample ${claimed.sample_index}) claimed by runner ${runner.name} (${runner.id}), attempt ${claimed.attempts} of ${claimed.max_attempts}`,
        );
        return taskView(claimed, run, this.leaseMs);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.deps.notifier.isClosed || signal?.aborted) return null;
      await this.deps.notifier.wait(ticket, remaining, signal);
    }
  }

  /**
   * One claim, one transaction: the runner's capacity is checked, the next task picked and leased
   * (a compare-and-set on `pending`). On PostgreSQL, where claims run side by side, the runner's
   * row is locked first and a task another claim is taking is skipped (in the repositories).
   */
  private async tryClaim(runner: RunnerRecord): Promise<BenchTaskRecord | undefined> {
    const t = this.now();
    return this.deps.repos.transaction(async (tx) => {
      await tx.runners.lockForClaim(runner.id);
      if ((await tx.benchTasks.heldCount(runner.id)) >= runner.max_concurrency) return undefined;
      const next = await tx.benchTasks.nextClaimable(runner);
      if (next === undefined) return undefined;
      return tx.benchTasks.lease(
        next,
        runner.id,
        { id: `lease_${randomUUID().replaceAll('-', '')}`, expiresAt: t + this.leaseMs },
        t,
      );
    });
  }

  private async runOf(runId: string): Promise<BenchRunRecord> {
    const run = await this.deps.repos.benchRuns.byId(runId);
    if (!run) throw notFound('bench run');
    return run;
  }
}
