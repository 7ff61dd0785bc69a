/**
 * Idempotency-Key on state-changing POSTs (routes with `config.idempotent`). Records are keyed by
 * (user, route template, key) and bound to a fingerprint of the path parameters and body:
 * - same key and body within 24 h: the first 2xx is replayed (status, body, `Idempotent-Replayed: true`);
 * - same key, other body: 409 `idempotency_mismatch`;
 * - same key while the first request still runs: 409 `conflict` with `Retry-After: 1` (it never runs twice);
 * - a non-2xx outcome is not kept: retrying with the same key runs the request again.
 * A POST without the header runs normally (no replay protection).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/connection.js';
import { AppError, conflict, validationFailed } from '../errors.js';
import { appendRouteHook } from './route-hooks.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** How long an in-progress record blocks duplicates before a crashed request's claim can be taken over. */
const IN_PROGRESS_LOCK_MS = 5 * 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Client-generated unique key (1-255 printable ASCII). The same key and body within 24 h replays the first 2xx with Idempotent-Replayed: true; another body is 409 idempotency_mismatch; a duplicate while the first runs is 409 conflict with Retry-After. Without it the request runs normally.',
    }),
  ),
});

interface Claim {
  userId: string;
  route: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

/** Canonical JSON: object keys sorted, so that key order does not change the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function parseKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (Array.isArray(header)) throw validationFailed('send one Idempotency-Key header');
  // The IETF draft quotes the value (a structured-field string); plain tokens are accepted too.
  const key =
    header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  if (!KEY_SHAPE.test(key))
    throw validationFailed('Idempotency-Key must be 1-255 printable ASCII characters without spaces');
  return key;
}

export function registerIdempotency(app: FastifyInstance, db: Db, now: () => number = Date.now): void {
  app.decorateRequest('idempotencyClaim', null);

  const claim = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (request.user === null) return;
    const key = parseKey(request.headers['idempotency-key']);
    if (key === null) return;
    const route = `${request.method} ${request.routeOptions.url ?? ''}`;
    const fingerprint = createHash('sha256')
      .update(canonicalJson({ params: request.params ?? {}, body: request.body ?? null }))
      .digest('hex');
    const userId = request.user.id;
    const t = now();

    const outcome = await db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('idempotency_records')
        .selectAll()
        .where('user_id', '=', userId)
        .where('route', '=', route)
        .where('key', '=', key)
        .executeTakeFirst();
      const fresh = existing && existing.created_at > t - IDEMPOTENCY_TTL_MS;
      if (existing && fresh) {
        if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' as const };
        if (existing.state === 'completed') return { kind: 'replay' as const, record: existing };
        if (existing.locked_until > t) return { kind: 'in_progress' as const };
        // The first request died without finishing: take its claim over (one taker wins).
        const taken = await trx
          .updateTable('idempotency_records')
          .set({ locked_until: t + IN_PROGRESS_LOCK_MS })
          .where('user_id', '=', userId)
          .where('route', '=', route)
          .where('key', '=', key)
          .where('locked_until', '=', existing.locked_until)
          .executeTakeFirst();
        return Number(taken.numUpdatedRows) === 1
          ? { kind: 'claimed' as const }
          : { kind: 'in_progress' as const };
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
          created_at: t,
          locked_until: t + IN_PROGRESS_LOCK_MS,
        })
        .onConflict((oc) => oc.columns(['user_id', 'route', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed' as const };
      // A concurrent request with this key inserted its claim between the read and the insert
      // (PostgreSQL runs such transactions side by side; SQLite serialises them).
      const winner = await trx
        .selectFrom('idempotency_records')
        .select('fingerprint')
        .where('user_id', '=', userId)
        .where('route', '=', route)
        .where('key', '=', key)
        .executeTakeFirst();
      return winner && winner.fingerprint !== fingerprint
        ? { kind: 'mismatch' as const }
        : { kind: 'in_progress' as const };
    });

    switch (outcome.kind) {
      case 'mismatch':
        throw new AppError(
          'idempotency_mismatch',
          'this Idempotency-Key was used with a different request body; use a new key for a new request',
        );
      case 'in_progress':
        throw conflict(
          'a request with this Idempotency-Key is still in progress; retry after Retry-After seconds',
          { retryAfterSeconds: 1 },
        );
      case 'replay': {
        const r = outcome.record;
        reply.header('Idempotent-Replayed', 'true');
        if (r.content_type) reply.header('content-type', r.content_type);
        // The stored body is already serialised: send it as is.
        await reply
          .code(r.status_code ?? 200)
          .serializer((p: unknown) => p as string)
          .send(r.response_body ?? '');
        return reply;
      }
      case 'claimed':
        request.idempotencyClaim = { userId, route, key };
        return;
    }
  };

  const record = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    const where = db
      .updateTable('idempotency_records')
      .where('user_id', '=', claim.userId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key);
    if (
      reply.statusCode >= 200 &&
      reply.statusCode < 300 &&
      (typeof payload === 'string' || payload === null || payload === undefined)
    ) {
      const ct = reply.getHeader('content-type');
      await where
        .set({
          state: 'completed',
          status_code: reply.statusCode,
          response_body: payload ?? '',
          content_type: typeof ct === 'string' ? ct : null,
        })
        .execute();
    } else {
      await db
        .deleteFrom('idempotency_records')
        .where('user_id', '=', claim.userId)
        .where('route', '=', claim.route)
        .where('key', '=', claim.key)
        .execute();
    }
    return payload;
  };

  // A request whose connection dropped before a response was sent must not block its key forever.
  const release = async (request: FastifyRequest): Promise<void> => {
    const claim = request.idempotencyClaim;
    if (!claim) return;
    request.idempotencyClaim = null;
    await db
      .deleteFrom('idempotency_records')
      .where('user_id', '=', claim.userId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .where('state', '=', 'in_progress')
      .execute();
  };

  // Only idempotent routes pay for these hooks.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    appendRouteHook(route, 'preHandler', claim);
    appendRouteHook(route, 'onSend', record);
    appendRouteHook(route, 'onResponse', release);
  });
}

/** Deletes records older than the replay window (run periodically). */
export async function pruneIdempotencyRecords(db: Db, now: number = Date.now()): Promise<number> {
  const res = await db
    .deleteFrom('idempotency_records')
    .where('created_at', '<=', now - IDEMPOTENCY_TTL_MS)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
