/**
 * Optional rate limits (off unless VESTA_RATE_LIMIT_PER_KEY or VESTA_RATE_LIMIT_PER_IP is set):
 * token buckets in the shared store (repositories/rate-limits.repository.ts), so that a limit holds across
 * every API process of a deployment.
 *
 * - `"ip"`: every request from one client address (the socket's peer), counted before anything
 *   else runs, so a flood of bad keys costs one bucket update each and no key lookup. The liveness,
 *   readiness and metrics probes and CORS preflights are not counted.
 * - `"key"`: every authenticated request of one API key (a dashboard session counts as its user),
 *   counted right after authentication.
 *
 * When limits are on, every response carries the IETF fields in the structured-field shape of
 * draft-ietf-httpapi-ratelimit-headers-08…-10: `RateLimit-Policy: "ip";q=1200;w=60, "key";q=600;w=60`
 * and `RateLimit: "ip";r=1187;t=1, "key";r=598;t=1` (r: units left; t: seconds until one more unit
 * is available). A refused request is 429 `rate_limited` with `Retry-After` (delay-seconds, never
 * earlier than `t`); it changes no bucket.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { BucketResult, BucketRule, RateLimitStore } from '../repositories/index.js';
import { API_PREFIX } from './auth.js';
import { appendRouteHook } from './route-hooks.js';

/** Routes never counted: orchestrator probes and the metrics scrape. */
const UNCOUNTED = new Set(['/healthz', '/readyz', '/metrics']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The `RateLimit` items of the buckets this request was counted in. */
    rateLimitItems: string[] | null;
  }
}

type Done = (e?: Error) => void;

/** `RateLimit-Policy` for the configured rules (an sf-list of named items). */
export function policyField(rules: BucketRule[]): string {
  return rules.map((r) => `"${r.name}";q=${r.quota};w=${r.windowSeconds}`).join(', ');
}

function item(rule: BucketRule, result: BucketResult): string {
  return `"${rule.name}";r=${result.remaining};t=${result.resetSeconds}`;
}

export function registerRateLimits(
  app: FastifyInstance,
  store: RateLimitStore,
  limits: RateLimitConfig,
): void {
  const ipRule: BucketRule | null = limits.perIp && { name: 'ip', ...limits.perIp };
  const keyRule: BucketRule | null = limits.perKey && { name: 'key', ...limits.perKey };
  if (ipRule === null && keyRule === null) return;
  const policy = policyField([ipRule, keyRule].filter((r): r is BucketRule => r !== null));
  app.decorateRequest('rateLimitItems', null);

  const count = (
    request: FastifyRequest,
    reply: FastifyReply,
    subject: string,
    rule: BucketRule,
    who: string,
    done: Done,
  ): void => {
    store.take(subject, rule).then(
      (result) => {
        const items = (request.rateLimitItems ??= []);
        items.push(item(rule, result));
        reply.header('RateLimit', items.join(', '));
        if (result.allowed) return done();
        done(
          new AppError(
            'rate_limited',
            `rate limit of ${who} exceeded (${rule.quota} requests per ${rule.windowSeconds} s): retry after ${result.retryAfterSeconds} s`,
            { retryAfterSeconds: result.retryAfterSeconds },
          ),
        );
      },
      (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
    );
  };

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('RateLimit-Policy', policy);
    if (ipRule === null || request.method === 'OPTIONS') return done();
    const route = request.routeOptions.url;
    if (route !== undefined && UNCOUNTED.has(route)) return done();
    count(request, reply, `i:${request.ip}`, ipRule, 'this client address', done);
  });

  if (keyRule === null) return;
  // After the route's authentication hook (registerAuth's onRoute hook ran first).
  const perKey = (request: FastifyRequest, reply: FastifyReply, done: Done): void => {
    const user = request.user;
    if (user === null || user === undefined || request.method === 'OPTIONS') return done();
    const header = request.headers['x-api-key'];
    const subject =
      typeof header === 'string' && header !== ''
        ? `k:${createHash('sha256').update(header).digest('hex').slice(0, 32)}`
        : `u:${user.id}`;
    count(request, reply, subject, keyRule, 'this API key', done);
  };
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(API_PREFIX)) appendRouteHook(route, 'onRequest', perKey);
  });
}
