/** DELETE /api/v1/invites/:id: revoke an open invite (admin). */
import type { RouteModule } from '../../app-deps.js';
import { noContentResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, adminOnly } from './context.js';
import { ACCOUNT_TAG, IdParams } from './schemas.js';

export const revokeInviteRoute: RouteModule = (app, { deps }) => {
  app.delete(
    '/api/v1/invites/:id',
    adminOnly(
      {
        operationId: 'revokeInvite',
        tags: [ACCOUNT_TAG],
        summary: 'Revoke an open invite (admin)',
        params: IdParams,
        response: noContentResponses('Revoked.', 'invalid_field', 'not_found', ...SESSION_ERRORS),
      },
      { noBody: true },
    ),
    async (request, reply) => {
      await deps.services.users.revokeInvite(request.params.id);
      return reply.code(204).send(null);
    },
  );
};
