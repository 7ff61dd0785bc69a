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
