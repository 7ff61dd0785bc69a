/**
 * Brute-force defence for sign-in: failures are counted per account (the lower-cased email, known
 * or not) and per client IP. The first `free` failures cost nothing; each further one locks that
 * account or IP for `baseLockMs * 2^(n - free)`, capped at `maxLockMs`. While locked, sign-in
 * answers 429 `rate_limited` with Retry-After without checking the password. A success clears the
 * account's count (never the IP's). Counters live in this process's memory and are forgotten after
 * `forgetAfterMs` without a failure; the map is bounded (the oldest entry goes first).
 */
export interface ThrottleRule {
  free: number;
  baseLockMs: number;
  maxLockMs: number;
}

export interface LoginThrottleOptions {
  account?: ThrottleRule;
  ip?: ThrottleRule;
  forgetAfterMs?: number;
  maxEntries?: number;
}

export const ACCOUNT_RULE: ThrottleRule = { free: 5, baseLockMs: 30_000, maxLockMs: 15 * 60_000 };
export const IP_RULE: ThrottleRule = { free: 20, baseLockMs: 30_000, maxLockMs: 15 * 60_000 };

interface Counter {
  failures: number;
  lockedUntil: number;
  lastFailure: number;
}

export class LoginThrottle {
  private readonly counters = new Map<string, Counter>();
  private readonly account: ThrottleRule;
  private readonly ip: ThrottleRule;
  private readonly forgetAfterMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly now: () => number = Date.now,
    options: LoginThrottleOptions = {},
  ) {
    this.account = options.account ?? ACCOUNT_RULE;
    this.ip = options.ip ?? IP_RULE;
    this.forgetAfterMs = options.forgetAfterMs ?? 24 * 3600_000;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  /** Milliseconds until sign-in may be tried again for this email and IP; 0 when it may now. */
  retryAfterMs(email: string, ip: string): number {
    const t = this.now();
    const wait = (key: string): number => {
      const c = this.read(key, t);
      return c ? Math.max(0, c.lockedUntil - t) : 0;
    };
    return Math.max(wait(`a:${email}`), wait(`i:${ip}`));
  }

  failed(email: string, ip: string): void {
    const t = this.now();
    this.bump(`a:${email}`, this.account, t);
    this.bump(`i:${ip}`, this.ip, t);
  }

  succeeded(email: string): void {
    this.counters.delete(`a:${email}`);
  }

  private read(key: string, t: number): Counter | undefined {
    const c = this.counters.get(key);
    if (c && t - c.lastFailure > this.forgetAfterMs && c.lockedUntil <= t) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  private bump(key: string, rule: ThrottleRule, t: number): void {
    const c = this.read(key, t) ?? { failures: 0, lockedUntil: 0, lastFailure: t };
    c.failures += 1;
    c.lastFailure = t;
    if (c.failures > rule.free) {
      const lock = Math.min(rule.maxLockMs, rule.baseLockMs * 2 ** Math.min(30, c.failures - rule.free - 1));
      c.lockedUntil = t + lock;
    }
    this.counters.delete(key);
    if (this.counters.size >= this.maxEntries) {
      const oldest = this.counters.keys().next();
      if (!oldest.done) this.counters.delete(oldest.value);
    }
    this.counters.set(key, c);
  }
}
