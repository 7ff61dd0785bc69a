import type { JobHandler, JobQueueStats, Logger } from '../../ports/job-queue.js';
import { abortJob, JobExecution } from './execution.js';
import { DutyTimers } from './run-stats.js';

/**
 * Runs a claim loop one at a time for a queue adapter: a wake-up while the loop runs is not lost
 * but folded into one more pass once it ends, so a burst of enqueues or notices costs at most one
 * extra claim round, never concurrent claims from one process.
 */
export class ClaimPump {
  private running = false;
  private again = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  wake(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }
}

/**
 * What both queue adapters share: the claim loop, the execution of what it claims, and the
 * process's timers. The adapter claims a job (its storage, its fairness) and builds its lease; this
 * loop runs one pass at a time (`ClaimPump`), claims while the process has a free slot and is not
 * stopping, and hands each job to the execution (`launch`). A job claimed as the stop began goes to
 * `claimedWhileStopping` where the adapter has one (handed back), else it runs like any other (the
 * stop's drain waits). From `start` to `stop` a poll wakes the loop every `pollMs` and the adapter's
 * `reapExpiredLeases` runs every third of a lease; periodic duties run while `runsDuties` says this
 * process runs them.
 */
export abstract class ClaimingJobQueue<J> {
  protected started = false;
  protected stopping = false;
  protected readonly execution: JobExecution;
  /** The logger given at start (or with the first periodic duty); null before. */
  protected log: Logger | null = null;
  private readonly pumper: ClaimPump;
  private readonly duties: DutyTimers;
  private pollTimer: NodeJS.Timeout | null = null;
  private reapTimer: NodeJS.Timeout | null = null;

  protected constructor(
    protected readonly leaseMs: number,
    private readonly concurrency: number,
    private readonly pollMs: number,
  ) {
    this.execution = new JobExecution(leaseMs, () => this.wake());
    this.duties = new DutyTimers(() => this.runsDuties());
    this.pumper = new ClaimPump(
      () => this.pump(),
      (e: unknown) => {
        if (this.started) this.execution.log.error({ err: e }, 'job claim failed');
      },
    );
  }

  /** The next job this process may run, claimed under a lease; undefined when none is claimable. */
  protected abstract claim(): Promise<J | undefined>;

  /** Hands a claimed job to the execution, with its lease. */
  protected abstract launch(job: J): void;

  /** Where a job claimed while the stop began goes back (none: it runs). */
  protected claimedWhileStopping?(job: J): Promise<unknown>;

  /** Puts back running jobs whose lease ran out (their process is gone); how many. */
  abstract reapExpiredLeases(): Promise<number>;

  /** What the storage needs before the first claim for these job types (none by default). */
  protected prepare(_types: string[]): Promise<void> {
    return Promise.resolve();
  }

  /** Whether this process runs the periodic duties now (one process: always). */
  protected runsDuties(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** The jobs in the queue's storage by type and state. */
  protected abstract depth(): Promise<JobQueueStats['depth']>;

  /** Starts the execution with its handlers and logger (once), the poll and the lease reaper. */
  start(handlers: ReadonlyMap<string, JobHandler<unknown>>, log: Logger): void {
    if (this.started) throw new Error('job queue already started');
    this.started = true;
    this.execution.start(handlers, log);
    this.log = log;
    const reap = (): Promise<unknown> =>
      this.reapExpiredLeases().catch((e: unknown) => log.error({ err: e }, 'lease reaper failed'));
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.reapTimer = setInterval(() => void reap(), Math.max(this.leaseMs / 3, 50));
    void this.prepare([...handlers.keys()])
      .then(reap, (e: unknown) => log.error({ err: e }, 'job queue start failed'))
      .then(() => this.wake());
  }

  every(name: string, intervalMs: number, duty: () => Promise<void>, log: Logger): void {
    this.log ??= log;
    this.duties.add(name, intervalMs, duty, log);
  }

  async stats(): Promise<JobQueueStats> {
    return { depth: await this.depth(), runs: this.execution.runStats.snapshot() };
  }

  /** Stops claiming and the duties, then drains the running jobs (`drainRunning`). */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.duties.stop();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reapTimer) clearInterval(this.reapTimer);
    await drainRunning(this.execution.running, graceMs, (r) => abortJob(r, 'shutdown'));
  }

  /** A job may have become claimable (an enqueue, a notice, a timer, a slot freed). */
  protected wake(): void {
    if (!this.started || this.stopping) return;
    this.pumper.wake();
  }

  private async pump(): Promise<void> {
    while (!this.stopping && this.execution.hasFreeSlot(this.concurrency)) {
      const job = await this.claim();
      if (!job) return;
      if (this.claimedWhileStopping && this.stopping) {
        await this.claimedWhileStopping(job);
        return;
      }
      this.launch(job);
    }
  }
}

/**
 * A graceful stop of the jobs running in this process: waits up to `graceMs` for them to finish,
 * then aborts whatever still runs (`abort`) and waits for those handlers to end too.
 */
export async function drainRunning<R extends { done: Promise<unknown> }>(
  running: ReadonlyMap<string, R>,
  graceMs: number,
  abort: (r: R) => void,
): Promise<void> {
  const all = () => Promise.allSettled([...running.values()].map((r) => r.done));
  if (running.size > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
  for (const r of running.values()) abort(r);
  await all();
}
