/** Retry timing: exponential backoff with crypto-based jitter, and `Retry-After` parsing. */

export interface BackoffPolicy {
  /** Delay before the first retry, in ms. */
  initialDelayMs: number;
  /** Upper bound of one delay, in ms. */
  maxDelayMs: number;
}

export const defaultBackoff: BackoffPolicy = { initialDelayMs: 500, maxDelayMs: 8_000 };

/** Longest server-requested wait (`Retry-After`) the SDK honours; longer hints are capped. */
export const maxRetryAfterMs = 60_000;

/** A uniform number in [0, 1) from the platform's CSPRNG. */
export function secureRandom(): number {
  const buf = new Uint32Array(1);
  globalThis.crypto.getRandomValues(buf);
  return (buf[0] ?? 0) / 0x1_0000_0000;
}

/**
 * Delay before retry number `retry` (0-based): `initial * 2^retry`, capped, then reduced by up
 * to 25 % of jitter so that many clients do not retry in lockstep.
 */
export function backoffDelay(
  retry: number,
  policy: BackoffPolicy = defaultBackoff,
  random: () => number = secureRandom,
): number {
  const base = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return Math.round(base * (1 - 0.25 * random()));
}

/**
 * Parses `Retry-After` (delta-seconds or an HTTP date) into ms; undefined when absent, invalid,
 * or negative. Capped at {@link maxRetryAfterMs}.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    ms = Number(trimmed) * 1000;
  } else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  if (ms < 0) return 0;
  return Math.min(ms, maxRetryAfterMs);
}
