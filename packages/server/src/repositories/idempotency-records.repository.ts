/**
 * Idempotency records (`idempotency_records`): one per (user, route template, key), holding the
 * request's fingerprint and, once it finished with a 2xx, its response to replay. The claim is one
 * transaction that reads, takes over or inserts, and stays correct when two requests with the same
 * key race on PostgreSQL (the insert's `ON CONFLICT DO NOTHING` makes one of them the winner).
 */
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/schema.js';

/** How long a key is remembered: a repeat within it replays (or is refused); older records are pruned. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export interface IdempotencyClaimKey {
  userId: string;
  route: string;
  key: string;
}

/**
 * A claim a request holds: its key and the `locked_until` it set, which fences the write of its
 * outcome (a claim taken over after its lock lapsed has another value, so a late write by the
 * first holder changes nothing).
 */
export interface IdempotencyClaim extends IdempotencyClaimKey {
  lockedUntil: number;
}

export interface StoredResponse {
  statusCode: number | null;
  body: string | null;
  contentType: string | null;
}

export type ClaimOutcome =
  | { kind: 'claimed'; lockedUntil: number }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' }
  | { kind: 'replay'; response: StoredResponse };

export interface ClaimTimes {
  /** Now, epoch ms; records created at or before `now - IDEMPOTENCY_TTL_MS` are expired (and replaced). */
  now: number;
  /** How long an in-progress claim blocks duplicates before it may be taken over. */
  lockMs: number;
}

/** The record of `claim` while that claim still holds it (in progress, with the lock it set). */
function heldBy(claim: IdempotencyClaim) {
  return (eb: ExpressionBuilder<Database, 'idempotency_records'>) =>
    eb.and([
      eb('user_id', '=', claim.userId),
      eb('route', '=', claim.route),
      eb('key', '=', claim.key),
      eb('state', '=', 'in_progress'),
      eb('locked_until', '=', claim.lockedUntil),
    ]);
}

export class IdempotencyRecordRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims `id` for a request with `fingerprint`: a fresh record with another fingerprint is a
   * mismatch, a completed one is replayed, a running one blocks (until its lock lapses: then one
   * taker wins it), and an expired or missing one is (re)created as this request's claim.
   */
  claim(id: IdempotencyClaimKey, fingerprint: string, t: ClaimTimes): Promise<ClaimOutcome> {
    const { userId, route, key } = id;
    return this.db.transaction().execute(async (trx): Promise<ClaimOutcome> => {
      const existing = await trx
        .selectFrom('idempotency_records')
        .selectAll()
        .where('user_id', '=', userId)
        .where('route', '=', route)
        .where('key', '=', key)
        .executeTakeFirst();
      const fresh = existing && existing.created_at > t.now - IDEMPOTENCY_TTL_MS;
      if (existing && fresh) {
        if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (existing.state === 'completed')
          return {
            kind: 'replay',
            response: {
              statusCode: existing.status_code,
              body: existing.response_body,
              contentType: existing.content_type,
            },
          };
        if (existing.locked_until > t.now) return { kind: 'in_progress' };
        // The first request died without finishing: take its claim over (one taker wins).
        const lockedUntil = t.now + t.lockMs;
        const taken = await trx
          .updateTable('idempotency_records')
          .set({ locked_until: lockedUntil })
          .where('user_id', '=', userId)
          .where('route', '=', route)
          .where('key', '=', key)
          .where('locked_until', '=', existing.locked_until)
          .executeTakeFirst();
        return Number(taken.numUpdatedRows) === 1
          ? { kind: 'claimed', lockedUntil }
          : { kind: 'in_progress' };
      }
      if (existing)
        await trx
          .deleteFrom('idempotency_records')
          .where('user_id', '=', userId)
          .where('route', '=', route)
          .where('key', '=', key)
          .execute();
      const inserted = await trx
        .insertInto('idempotency_records')
        .values({
          user_id: userId,
          route,
          key,
          fingerprint,
          state: 'in_progress',
          status_code: null,
          response_body: null,
          content_type: null,
          created_at: t.now,
          locked_until: t.now + t.lockMs,
        })
        .onConflict((oc) => oc.columns(['user_id', 'route', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1)
        return { kind: 'claimed', lockedUntil: t.now + t.lockMs };
      // A concurrent request with this key inserted its claim between the read and the insert
      // (PostgreSQL runs such transactions side by side; SQLite serialises them).
      const winner = await trx
        .selectFrom('idempotency_records')
        .select('fingerprint')
        .where('user_id', '=', userId)
        .where('route', '=', route)
        .where('key', '=', key)
        .executeTakeFirst();
      return winner && winner.fingerprint !== fingerprint ? { kind: 'mismatch' } : { kind: 'in_progress' };
    });
  }

  /** Keeps a finished 2xx response for replay (if `claim` still holds its record). */
  async complete(claim: IdempotencyClaim, response: Required<StoredResponse>): Promise<void> {
    await this.db
      .updateTable('idempotency_records')
      .set({
        state: 'completed',
        status_code: response.statusCode,
        response_body: response.body,
        content_type: response.contentType,
      })
      .where(heldBy(claim))
      .execute();
  }

  /**
   * Forgets a claim (a non-2xx outcome is not kept; nor is a request whose client went away before
   * an answer), if `claim` still holds its record: a completed record, or one taken over, stays.
   */
  async forget(claim: IdempotencyClaim): Promise<void> {
    await this.db.deleteFrom('idempotency_records').where(heldBy(claim)).execute();
  }

  /** Deletes records older than the replay window (run periodically); returns how many. */
  async pruneExpired(now: number = Date.now()): Promise<number> {
    const res = await this.db
      .deleteFrom('idempotency_records')
      .where('created_at', '<=', now - IDEMPOTENCY_TTL_MS)
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
