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
