/** What both job-queue adapters share: counting finished runs for `stats`, and local timers. */
import type { JobOutcome, JobQueueStats, Logger } from '../../ports/job-queue.js';

export class RunStats {
  private readonly runs = new Map<
    string,
    { type: string; outcome: JobOutcome; count: number; seconds: number }
  >();

  record(type: string, outcome: JobOutcome, seconds: number): void {
    const key = `${type}\u0000${outcome}`;
    const r = this.runs.get(key) ?? { type, outcome, count: 0, seconds: 0 };
    r.count++;
    r.seconds += seconds;
    this.runs.set(key, r);
  }

  snapshot(): JobQueueStats['runs'] {
    return [...this.runs.values()].map((r) => ({ ...r }));
  }
}

/**
 * Timers of periodic duties: each runs soon after it is added and then every interval; a run
 * never overlaps the previous one of the same duty. `gate` says whether this process runs duties
 * now (the embedded queue: always; the job engine: while it is the elected leader).
 */
export class DutyTimers {
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly gate: () => Promise<boolean>) {}

  add(name: string, intervalMs: number, duty: () => Promise<void>, log: Logger): void {
    if (this.stopped) return;
    let busy = false;
    const tick = (): void => {
      if (busy || this.stopped) return;
      busy = true;
      void this.gate()
        .then((run) => (run && !this.stopped ? duty() : undefined))
        .catch((e: unknown) => log.error({ err: e, duty: name }, 'periodic duty failed'))
        .finally(() => (busy = false));
    };
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, intervalMs);
    first.unref();
    timer.unref();
    this.timers.push(first, timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
  }
}
