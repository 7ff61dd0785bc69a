/** DELETE /api/v1/api-keys/:id: revoke an API key. */
import type { RouteModule } from '../../app-deps.js';
import { noContentResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, sessionOnly } from './context.js';
import { IdParams, KEYS_TAG } from './schemas.js';

export const revokeApiKeyRoute: RouteModule = (app, { deps }) => {
  app.delete(
    '/api/v1/api-keys/:id',
    sessionOnly(
      {
        operationId: 'revokeApiKey',
        tags: [KEYS_TAG],
        summary: 'Revoke an API key',
        description:
          "The key answers 401 `unauthorized` from now on. Another user's key is 403 `forbidden`; an unknown or already revoked one 404 `not_found`. Session cookie and X-CSRF-Token only.",
        params: IdParams,
        response: noContentResponses('Revoked.', 'invalid_field', 'not_found', ...SESSION_ERRORS),
      },
      { noBody: true },
    ),
    async (request, reply) => {
      await deps.services.apiKeys.revokeOwn(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
