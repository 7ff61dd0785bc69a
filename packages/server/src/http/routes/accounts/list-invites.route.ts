/** GET /api/v1/invites: invites (admin). */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, SESSION_SECURITY, requireAdmin } from './context.js';
import { ACCOUNT_TAG, InviteList } from './schemas.js';

export const listInvitesRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/invites',
    {
      config: { auth: 'web-session', admin: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'listInvites',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Invites (admin)',
        response: { 200: InviteList, ...errorResponses(...SESSION_ERRORS) },
      },
    },
    async () => ({ items: await deps.services.users.listInvites() }),
  );
};
