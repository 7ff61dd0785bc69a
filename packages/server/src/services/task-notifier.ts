/**
 * Wakes long-polling runner claims when a generation task may have become claimable (a run was
 * created, a task went back to the queue, a runner's slot freed up). A version counter avoids lost
 * wake-ups: a claim takes a ticket before it looks for work, and a wait on an outdated ticket
 * returns at once. `close()` (shutdown) ends every wait.
 *
 * `notify` wakes this process's claims and calls `broadcast`, which tells the other API processes
 * (the `tasks` topic of ClusterEvents); a message from another process calls `wake`, which wakes
 * only this process's claims.
 */
export class TaskNotifier {
  constructor(private readonly broadcast: () => void = () => undefined) {}

  private version = 0;
  private closed = false;
  private readonly waiters = new Set<() => void>();

  /** The current version; pass it to `wait` after looking for work. */
  ticket(): number {
    return this.version;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Something may be claimable: wake every waiting claim, here and in the other processes. */
  notify(): void {
    this.wake();
    this.broadcast();
  }

  /** Another process said something may be claimable (or its messages may have been missed). */
  wake(): void {
    this.version++;
    this.wakeAll();
  }

  /**
   * Resolves when `notify` was called since `ticket` was taken, after `ms`, when `signal` aborts,
   * or on `close` — whichever comes first. Never rejects.
   */
  wait(ticket: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || ticket !== this.version || ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Shutdown: every wait returns now, later ones at once. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const w of [...this.waiters]) w();
  }
}
