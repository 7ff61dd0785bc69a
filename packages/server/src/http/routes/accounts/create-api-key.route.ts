/** POST /api/v1/api-keys: create an API key. */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, noStore, sessionOnly } from './context.js';
import { CreateApiKeyBody, CreatedApiKey, KEYS_TAG } from './schemas.js';

export const createApiKeyRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/api-keys',
    sessionOnly({
      operationId: 'createApiKey',
      tags: [KEYS_TAG],
      summary: 'Create an API key',
      description:
        'Returns the whole key once (only its hash is stored). With `expiresInDays` the key answers 401 `unauthorized` after that. ' +
        'Session cookie and X-CSRF-Token only: an X-API-Key is 401 `unauthorized`.',
      body: CreateApiKeyBody,
      response: {
        201: CreatedApiKey,
        ...errorResponses('validation_failed', 'invalid_field', ...SESSION_ERRORS),
      },
    }),
    async (request, reply) => {
      const account = accountOf(request);
      const { name, expiresInDays } = request.body;
      const created = await deps.services.apiKeys.createKeyFor(account.id, {
        name: name.trim() || 'key',
        expiresAt: expiresInDays === undefined ? null : Date.now() + expiresInDays * 86_400_000,
      });
      const apiKey = (await deps.services.apiKeys.list(account.id)).find((k) => k.id === created.id);
      noStore(reply);
      return reply.code(201).send({ key: created.key, apiKey: apiKey! });
    },
  );
};
