/** DELETE /api/v1/account/sessions/:id: sign one of your sessions out. */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, SESSION_SECURITY, accountOf } from './context.js';
import { ACCOUNT_TAG, IdParams } from './schemas.js';

export const revokeWebSessionRoute: RouteModule = (app, { deps }) => {
  app.delete(
    '/api/v1/account/sessions/:id',
    {
      config: { auth: 'web-session', noBody: true },
      schema: {
        operationId: 'revokeWebSession',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Sign one of your sessions out',
        description: "Another user's session is 403 `forbidden`; an unknown one 404 `not_found`.",
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Signed out.' }),
          ...errorResponses('invalid_field', 'not_found', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await deps.services.accounts.revokeWebSession(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
