/** DELETE /api/v1/invites/:id: revoke an open invite (admin). */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, SESSION_SECURITY, requireAdmin } from './context.js';
import { ACCOUNT_TAG, IdParams } from './schemas.js';

export const revokeInviteRoute: RouteModule = (app, { deps }) => {
  app.delete(
    '/api/v1/invites/:id',
    {
      config: { auth: 'web-session', admin: true, noBody: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'revokeInvite',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Revoke an open invite (admin)',
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Revoked.' }),
          ...errorResponses('invalid_field', 'not_found', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await deps.services.users.revokeInvite(request.params.id);
      return reply.code(204).send(null);
    },
  );
};
