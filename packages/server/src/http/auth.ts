/**
 * X-API-Key authentication for every /api/v1 route (routes opt out with `config.auth: false`).
 * A missing, malformed, unknown or revoked key is 401 `unauthorized`; the key is never logged.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ApiKeyService } from '../services/api-key-service.js';
import { appendRouteHook } from './route-hooks.js';

export const API_PREFIX = '/api/v1';

export function registerAuth(app: FastifyInstance, apiKeys: ApiKeyService): void {
  app.decorateRequest('user', null);
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    // CORS preflights carry no key.
    if (request.method === 'OPTIONS') return;
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? undefined : header;
    if (presented === undefined || presented === '')
      throw new AppError('unauthorized', 'missing X-API-Key header');
    const user = await apiKeys.authenticate(presented);
    if (!user) throw new AppError('unauthorized', 'invalid API key');
    request.user = user;
  };
  // Every /api/v1 route gets the check unless it opts out; unknown routes answer 404.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(API_PREFIX) && route.config?.auth !== false)
      appendRouteHook(route, 'onRequest', authenticate);
  });
}
