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
import { AppError, conflict, validationFailed } from '../errors.js';
import type { IdempotencyClaimKey, IdempotencyRecordRepository } from '../repositories/index.js';
import { appendRouteHook } from './route-hooks.js';

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

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: IdempotencyClaimKey | null;
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

export function registerIdempotency(
  app: FastifyInstance,
  records: IdempotencyRecordRepository,
  now: () => number = Date.now,
): void {
  app.decorateRequest('idempotencyClaim', null);

  const claim = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (request.user === null) return;
    const key = parseKey(request.headers['idempotency-key']);
    if (key === null) return;
    const id = { userId: request.user.id, route: `${request.method} ${request.routeOptions.url ?? ''}`, key };
    const fingerprint = createHash('sha256')
      .update(canonicalJson({ params: request.params ?? {}, body: request.body ?? null }))
      .digest('hex');
    const outcome = await records.claim(id, fingerprint, { now: now(), lockMs: IN_PROGRESS_LOCK_MS });

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
        const r = outcome.response;
        reply.header('Idempotent-Replayed', 'true');
        if (r.contentType) reply.header('content-type', r.contentType);
        // The stored body is already serialised: send it as is.
        await reply
          .code(r.statusCode ?? 200)
          .serializer((p: unknown) => p as string)
          .send(r.body ?? '');
        return reply;
      }
      case 'claimed':
        request.idempotencyClaim = id;
        return;
    }
  };

  const record = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    if (
      reply.statusCode >= 200 &&
      reply.statusCode < 300 &&
      (typeof payload === 'string' || payload === null || payload === undefined)
    ) {
      const ct = reply.getHeader('content-type');
      await records.complete(claim, {
        statusCode: reply.statusCode,
        body: payload ?? '',
        contentType: typeof ct === 'string' ? ct : null,
      });
    } else {
      await records.forget(claim);
    }
    return payload;
  };

  // A request whose connection dropped before a response was sent must not block its key forever.
  const release = async (request: FastifyRequest): Promise<void> => {
    const claim = request.idempotencyClaim;
    if (!claim) return;
    request.idempotencyClaim = null;
    await records.forget(claim, true);
  };

  // Only idempotent routes pay for these hooks.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    appendRouteHook(route, 'preHandler', claim);
    appendRouteHook(route, 'onSend', record);
    appendRouteHook(route, 'onResponse', release);
  });
}
