/**
 * X-API-Key authentication for every /api/v1 route (routes opt out with `config.auth: false`).
 * A missing, malformed, unknown or revoked key is 401 `unauthorized`; the key is never logged.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ApiKeyService } from '../services/api-key-service.js';
import { appendRouteHook } from './route-hooks.js';

export const API_PREFIX = '/api/v1';

export function registerAuth(app: FastifyInstance, apiKeys: ApiKeyService): void {
  app.decorateRequest('user', null);
  // A callback hook, not an async one: a key seen in the last few seconds is answered from the
  // key cache without a promise, which is what most requests of a polling client are.
  const authenticate = (request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void): void => {
    // CORS preflights carry no key.
    if (request.method === 'OPTIONS') return done();
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? undefined : header;
    if (presented === undefined || presented === '')
      return done(new AppError('unauthorized', 'missing X-API-Key header'));
    const hit = apiKeys.cached(presented);
    if (hit !== undefined) {
      request.user = hit;
      return done();
    }
    apiKeys.authenticate(presented).then(
      (user) => {
        if (!user) return done(new AppError('unauthorized', 'invalid API key'));
        request.user = user;
        done();
      },
      (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
    );
  };
  // Every /api/v1 route gets the check unless it opts out; unknown routes answer 404.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(API_PREFIX) && route.config?.auth !== false)
      appendRouteHook(route, 'onRequest', authenticate);
  });
}
