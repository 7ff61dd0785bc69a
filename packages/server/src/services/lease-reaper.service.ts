/**
 * The runner-lease reaper: a claimed task whose lease was not renewed in time goes back to the
 * queue while attempts remain, else fails with `lease_expired`. Run by the worker role every few
 * seconds (one process of the deployment at a time).
 */
import type { Repositories } from '../repositories/index.js';
import type { BenchProgressService } from './bench-progress.service.js';
import type { TaskNotifier } from './task-notifier.js';

export class LeaseReaperService {
  constructor(
    private readonly repos: Repositories,
    private readonly progress: BenchProgressService,
    private readonly notifier: TaskNotifier,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Expired leases: the task goes back to the queue while attempts remain, else fails with
   * `lease_expired`. Run by the worker role every few seconds. Returns the tasks handled.
   */
  async reapExpiredLeases(): Promise<number> {
    const t = this.now();
    const expired = await this.repos.benchTasks.expiredLeases(t);
    const runs = new Set<string>();
    let handled = 0;
    for (const task of expired) {
      const again = task.attempts < task.max_attempts;
      const expiries = task.lease_expiries + 1;
      const detail = again
        ? `lease expired on attempt ${task.attempts} of ${task.max_attempts} (runner stopped heartbeating)`
        : `lease expired ${expiries} time${expiries === 1 ? '' : 's'} (runner stopped heartbeating)`;
      const moved = await this.repos.benchTasks.expireLease(task.id, task.lease_id, {
        state: again ? 'pending' : 'failed',
        lease_id: again ? null : task.lease_id,
        lease_expiries: expiries,
        error_code: 'lease_expired',
        error_detail: detail,
        updated_at: t,
      });
      if (!moved) continue;
      handled++;
      runs.add(task.run_id);
      await this.progress.appendLog(
        task.run_id,
        'server',
        again ? 'warn' : 'error',
        `clip #${task.seq}: ${detail}; ${again ? 'back in the queue' : 'failed'}`,
      );
    }
    if (handled > 0) this.notifier.notify();
    for (const runId of runs) await this.progress.advance(runId);
    return handled;
  }
}
