/** DELETE /api/v1/account/sessions/:id: sign one of your sessions out. */
import type { RouteModule } from '../../app-deps.js';
import { noContentResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, sessionOnly } from './context.js';
import { ACCOUNT_TAG, IdParams } from './schemas.js';

export const revokeWebSessionRoute: RouteModule = (app, { deps }) => {
  app.delete(
    '/api/v1/account/sessions/:id',
    sessionOnly(
      {
        operationId: 'revokeWebSession',
        tags: [ACCOUNT_TAG],
        summary: 'Sign one of your sessions out',
        description: "Another user's session is 403 `forbidden`; an unknown one 404 `not_found`.",
        params: IdParams,
        response: noContentResponses('Signed out.', 'invalid_field', 'not_found', ...SESSION_ERRORS),
      },
      { noBody: true },
    ),
    async (request, reply) => {
      await deps.services.accounts.revokeWebSession(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
