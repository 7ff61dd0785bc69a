/** GET /api/v1/api-keys: Your API keys. */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, sessionOnly } from './context.js';
import { ApiKeyList, KEYS_TAG } from './schemas.js';

// API keys: session only, so that a leaked key can never mint or revoke keys.
export const listApiKeysRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/api-keys',
    sessionOnly({
      operationId: 'listApiKeys',
      tags: [KEYS_TAG],
      summary: 'Your API keys',
      description:
        'Keys not revoked, newest first (expired ones marked). Session cookie only: an X-API-Key is 401 `unauthorized`.',
      response: { 200: ApiKeyList, ...errorResponses(...SESSION_ERRORS) },
    }),
    async (request) => ({ items: await deps.services.apiKeys.list(accountOf(request).id) }),
  );
};
