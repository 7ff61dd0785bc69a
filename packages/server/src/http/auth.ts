/**
 * X-API-Key authentication for every /api/v1 route (routes opt out with `config.auth: false`).
 * A missing, malformed, unknown or revoked key is 401 `unauthorized`; the key is never logged.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import type { ApiKeyService } from '../services/api-key-service.js';

export const API_PREFIX = '/api/v1';

export function registerAuth(app: FastifyInstance, apiKeys: ApiKeyService): void {
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    // Unknown routes fall through to the 404 handler; CORS preflights carry no key.
    if (url === undefined || request.method === 'OPTIONS') return;
    if (!url.startsWith(API_PREFIX) || request.routeOptions.config.auth === false) return;
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? undefined : header;
    if (presented === undefined || presented === '') throw new AppError('unauthorized', 'missing X-API-Key header');
    const user = await apiKeys.authenticate(presented);
    if (!user) throw new AppError('unauthorized', 'invalid API key');
    request.user = user;
  });
}
