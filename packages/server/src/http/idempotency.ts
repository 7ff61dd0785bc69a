/**
 * Idempotency-Key on state-changing POSTs (routes with `config.idempotent`). Records are keyed by
 * (user, route template, key) and bound to a fingerprint of the path parameters and body:
 * - same key and body within 24 h: the first 2xx is replayed (status, body, `Idempotent-Replayed: true`);
 * - same key, other body: 409 `idempotency_mismatch`;
 * - same key while the first request still runs: 409 `conflict` with `Retry-After: 1` (it never runs twice);
 * - a non-2xx outcome is not kept: retrying with the same key runs the request again.
 * A POST without the header runs normally (no replay protection).
 *
 * The outcome's write (keep the 2xx, or forget the claim) may fail when the database became
 * unreachable while the request ran (a PostgreSQL restart). The answer is sent all the same, and
 * the write is tried again in the background until it lands (`PendingOutcomeWrites`): a retry of
 * the key meanwhile gets 409 `conflict` with Retry-After, then the replay or a fresh run — not a
 * key blocked for the in-progress lock's 5 minutes. Only a process that dies holding a claim leaves
 * it to that lock.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, conflict, validationFailed } from '../errors.js';
import type { IdempotencyClaim, IdempotencyRecordRepository } from '../repositories/index.js';
import { appendRouteHook } from './route-hooks.js';

/** How long an in-progress record blocks duplicates before a crashed request's claim can be taken over. */
const IN_PROGRESS_LOCK_MS = 5 * 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** A failed outcome write is tried again after 250 ms, doubling up to 5 s. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;

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
    idempotencyClaim: IdempotencyClaim | null;
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

/**
 * Writes of claims' outcomes that failed, tried again until they land or the claim's lock lapses
 * (another request may then take the claim over, and the fenced write would change nothing). One
 * write per claim; `close` makes a last attempt.
 */
class PendingOutcomeWrites {
  private readonly pending = new Map<string, { claim: IdempotencyClaim; write: () => Promise<void> }>();
  private timer: NodeJS.Timeout | null = null;
  private delayMs = RETRY_MIN_MS;
  private flushing = false;
  private closed = false;

  constructor(
    private readonly warn: (message: string, err?: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `write`; if it fails, keeps it to try again. Never throws. */
  async run(claim: IdempotencyClaim, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      this.warn('could not write an Idempotency-Key outcome; trying again in the background', err);
      this.pending.set(JSON.stringify([claim.userId, claim.route, claim.key]), { claim, write });
      this.schedule();
    }
  }

  /** The last attempt (at shutdown); what still fails is left to the claims' locks. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.flushing || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.delayMs);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (const [id, entry] of [...this.pending]) {
        if (entry.claim.lockedUntil <= this.now()) {
          this.pending.delete(id);
          this.warn("gave up writing an Idempotency-Key outcome: its claim's lock has lapsed");
          continue;
        }
        try {
          await entry.write();
          // A newer claim of the same key may have failed its write meanwhile: that one stays.
          if (this.pending.get(id) === entry) this.pending.delete(id);
        } catch {
          // Still unreachable: the next round tries again.
        }
      }
    } finally {
      this.flushing = false;
    }
    if (this.pending.size === 0) this.delayMs = RETRY_MIN_MS;
    else {
      this.delayMs = Math.min(this.delayMs * 2, RETRY_MAX_MS);
      this.schedule();
    }
  }
}

export function registerIdempotency(
  app: FastifyInstance,
  records: IdempotencyRecordRepository,
  now: () => number = Date.now,
): void {
  app.decorateRequest('idempotencyClaim', null);
  const writes = new PendingOutcomeWrites((message, err) => app.log.warn({ err }, message), now);
  app.addHook('onClose', () => writes.close());

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
        request.idempotencyClaim = { ...id, lockedUntil: outcome.lockedUntil };
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
      const response = {
        statusCode: reply.statusCode,
        body: payload ?? '',
        contentType: typeof ct === 'string' ? ct : null,
      };
      await writes.run(claim, () => records.complete(claim, response));
    } else {
      await writes.run(claim, () => records.forget(claim));
    }
    return payload;
  };

  // A request whose connection dropped before a response was sent must not block its key forever.
  const release = async (request: FastifyRequest): Promise<void> => {
    const claim = request.idempotencyClaim;
    if (!claim) return;
    request.idempotencyClaim = null;
    await writes.run(claim, () => records.forget(claim));
  };

  // Only idempotent routes pay for these hooks.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    appendRouteHook(route, 'preHandler', claim);
    appendRouteHook(route, 'onSend', record);
    appendRouteHook(route, 'onResponse', release);
  });
}
