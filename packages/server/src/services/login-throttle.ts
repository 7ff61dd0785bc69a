/**
 * Brute-force defence for sign-in: failures are counted per account (the lower-cased email, known
 * or not) and per client IP. The first `free` failures cost nothing; each further one locks that
 * account or IP for `baseLockMs * 2^(n - free)`, capped at `maxLockMs`. While locked, sign-in
 * answers 429 `rate_limited` with Retry-After without checking the password. A success clears the
 * account's count (never the IP's). Counters live in the shared `rate_limits` table, so a lockout
 * holds across every API process of a deployment; a count is forgotten after `forgetAfterMs`
 * without a failure (and its row pruned).
 */
import type { RateLimitStore } from '../repositories/index.js';

export interface ThrottleRule {
  free: number;
  baseLockMs: number;
  maxLockMs: number;
}

export interface LoginThrottleOptions {
  account?: ThrottleRule;
  ip?: ThrottleRule;
  forgetAfterMs?: number;
}

export const ACCOUNT_RULE: ThrottleRule = { free: 5, baseLockMs: 30_000, maxLockMs: 15 * 60_000 };
export const IP_RULE: ThrottleRule = { free: 20, baseLockMs: 30_000, maxLockMs: 15 * 60_000 };

/**
 * The sign-in throttle over the shared store (repositories/rate-limits.repository.ts): a lock set by one
 * API process holds in every other.
 */
export class LoginThrottle {
  private readonly account: ThrottleRule;
  private readonly ip: ThrottleRule;
  private readonly forgetAfterMs: number;

  constructor(
    private readonly store: RateLimitStore,
    options: LoginThrottleOptions = {},
  ) {
    this.account = options.account ?? ACCOUNT_RULE;
    this.ip = options.ip ?? IP_RULE;
    this.forgetAfterMs = options.forgetAfterMs ?? 24 * 3600_000;
  }

  /** Milliseconds until sign-in may be tried again for this email and IP; 0 when it may now. */
  retryAfterMs(email: string, ip: string): Promise<number> {
    return this.store.lockedForMs([`la:${email}`, `li:${ip}`]);
  }

  async failed(email: string, ip: string): Promise<void> {
    await this.bump(`la:${email}`, this.account);
    await this.bump(`li:${ip}`, this.ip);
  }

  async succeeded(email: string): Promise<void> {
    await this.store.clear(`la:${email}`);
  }

  private async bump(subject: string, rule: ThrottleRule): Promise<void> {
    const failures = await this.store.countFailure(subject, this.forgetAfterMs);
    if (failures <= rule.free) return;
    const lock = Math.min(rule.maxLockMs, rule.baseLockMs * 2 ** Math.min(30, failures - rule.free - 1));
    await this.store.lockUntil(subject, this.store.now() + lock);
  }
}
