/** Retrying runner calls through transient failures (no connection, timeouts, 429, 5xx). */
import { sleep } from '../core/abort.js';
import { backoffDelay } from '../core/backoff.js';
import { ApiError, isTransient } from '../core/errors.js';

export interface RetryPolicy {
  /** Stop retrying after this time (epoch ms); the last error is thrown. */
  deadline?: number;
  /** Aborts the waits (the last error is thrown). */
  signal?: AbortSignal;
  onRetry?: (err: unknown, delayMs: number) => void;
}

/**
 * Calls `fn(key)` until it succeeds, a non-transient error is thrown, or the deadline passes.
 * `key` is one Idempotency-Key for every attempt, so a repeated POST is replayed, not redone.
 */
export async function retryTransient<T>(
  fn: (idempotencyKey: string) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  const key = globalThis.crypto.randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(key);
    } catch (err) {
      const delay = backoffDelay(Math.min(attempt, 4));
      if (
        !isTransient(err) ||
        policy.signal?.aborted ||
        (policy.deadline !== undefined && Date.now() + delay >= policy.deadline)
      )
        throw err;
      policy.onRetry?.(err, delay);
      try {
        await sleep(delay, policy.signal);
      } catch {
        throw err;
      }
    }
  }
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.code}: ${err.detail}`;
  return err instanceof Error ? err.message : String(err);
}
