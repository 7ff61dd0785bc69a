/**
 * The shared store (repository) of rate-limit buckets and sign-in lockout counters: the `rate_limits` table
 * (migration 0012), on SQLite and PostgreSQL alike, so that every API process of a deployment
 * draws on the same counters (several processes on one PostgreSQL database, or on one SQLite data
 * directory). Every change is one atomic statement; nothing is read, decided in JavaScript and
 * written back.
 *
 * Buckets are token buckets in their GCRA form (generic cell rate algorithm): a bucket of `quota`
 * units refilled at `quota / window` keeps one number, the theoretical arrival time `tat`. A
 * request is allowed when `max(tat, now) + T - now <= quota × T` (T = window / quota), and then
 * `tat` moves to `max(tat, now) + T`: exactly a bucket that holds at most `quota` tokens and gains
 * one every T. A refused request changes nothing (the upsert's WHERE does not match), so a client
 * that keeps hammering does not push its own recovery further away.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';

export interface BucketRule {
  /** The policy's name in the RateLimit fields (`"key"`, `"ip"`). */
  name: string;
  /** Units (requests) the bucket holds: the burst, and what it refills per window. */
  quota: number;
  windowSeconds: number;
}

export interface BucketResult {
  allowed: boolean;
  /** Units left after this request (0 when refused). */
  remaining: number;
  /** Seconds until one more unit is available (0 when the bucket is full): the draft's `t`. */
  resetSeconds: number;
  /** When refused: seconds until a request will be allowed (≥ 1), for Retry-After. */
  retryAfterSeconds: number;
}

const big = (n: number) => sql<number>`cast(${Math.floor(n)} as bigint)`;

/** The emission interval of a rule in ms (at least 1). */
export function emissionIntervalMs(rule: BucketRule): number {
  return Math.max(1, Math.round((rule.windowSeconds * 1000) / rule.quota));
}

export class RateLimitStore {
  constructor(
    private readonly db: Db,
    readonly now: () => number = Date.now,
  ) {}

  /** Takes one unit from `subject`'s bucket under `rule`, if it has one. */
  async take(subject: string, rule: BucketRule): Promise<BucketResult> {
    const t = Math.floor(this.now());
    const T = emissionIntervalMs(rule);
    const burst = T * rule.quota;
    // max(tat, now) + T, written portably (SQLite's max() is PostgreSQL's greatest()).
    const next = sql<number>`(case when rate_limits.tat > ${big(t)} then rate_limits.tat else ${big(t)} end) + ${big(T)}`;
    const row = await this.db
      .insertInto('rate_limits')
      .values({ key: subject, tat: t + T, failures: 0, locked_until: 0, touched_at: t, expires_at: t + T })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ tat: next, touched_at: big(t), expires_at: next })
          .where(sql<boolean>`${next} - ${big(t)} <= ${big(burst)}`),
      )
      .returning('tat')
      .executeTakeFirst();
    if (row !== undefined) {
      const tat = Number(row.tat);
      const remaining = Math.max(0, Math.min(rule.quota, Math.floor((t + burst - tat) / T)));
      const resetSeconds =
        remaining >= rule.quota ? 0 : Math.max(1, Math.ceil((tat - burst + (remaining + 1) * T - t) / 1000));
      return { allowed: true, remaining, resetSeconds, retryAfterSeconds: 0 };
    }
    const current = await this.db
      .selectFrom('rate_limits')
      .select('tat')
      .where('key', '=', subject)
      .executeTakeFirst();
    const tat = current === undefined ? t : Number(current.tat);
    const wait = Math.max(1, Math.ceil((tat + T - burst - t) / 1000));
    return { allowed: false, remaining: 0, resetSeconds: wait, retryAfterSeconds: wait };
  }

  /** Milliseconds until the latest lock among `subjects` ends (0: none is locked). */
  async lockedForMs(subjects: string[]): Promise<number> {
    const t = this.now();
    const rows = await this.db
      .selectFrom('rate_limits')
      .select('locked_until')
      .where('key', 'in', subjects)
      .execute();
    return rows.reduce((wait, r) => Math.max(wait, Number(r.locked_until) - t), 0);
  }

  /**
   * Counts one failure for `subject` and returns the count. A count whose last failure is older
   * than `forgetAfterMs`, and that holds no lock, starts again at 1.
   */
  async countFailure(subject: string, forgetAfterMs: number): Promise<number> {
    const t = Math.floor(this.now());
    const row = await this.db
      .insertInto('rate_limits')
      .values({
        key: subject,
        tat: 0,
        failures: 1,
        locked_until: 0,
        touched_at: t,
        expires_at: t + forgetAfterMs,
      })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when rate_limits.touched_at < ${big(t - forgetAfterMs)} and rate_limits.locked_until <= ${big(t)} then 1 else rate_limits.failures + 1 end`,
          touched_at: big(t),
          expires_at: sql<number>`case when rate_limits.locked_until > ${big(t + forgetAfterMs)} then rate_limits.locked_until else ${big(t + forgetAfterMs)} end`,
        }),
      )
      .returning('failures')
      .executeTakeFirstOrThrow();
    return Number(row.failures);
  }

  /** Locks `subject` until `until` (epoch ms) unless it is already locked longer. */
  async lockUntil(subject: string, until: number): Promise<void> {
    const u = Math.floor(until);
    await this.db
      .updateTable('rate_limits')
      .set({
        locked_until: sql<number>`case when locked_until > ${big(u)} then locked_until else ${big(u)} end`,
        expires_at: sql<number>`case when expires_at > ${big(u)} then expires_at else ${big(u)} end`,
      })
      .where('key', '=', subject)
      .execute();
  }

  async clear(subject: string): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('key', '=', subject).execute();
  }

  /** Deletes rows that hold nothing any more (a full bucket, a forgotten count); returns how many. */
  async prune(): Promise<number> {
    const res = await this.db
      .deleteFrom('rate_limits')
      .where('expires_at', '<', Math.floor(this.now()))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
