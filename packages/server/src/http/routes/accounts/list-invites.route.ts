/** GET /api/v1/invites: invites (admin). */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, adminOnly } from './context.js';
import { ACCOUNT_TAG, InviteList } from './schemas.js';

export const listInvitesRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/invites',
    adminOnly({
      operationId: 'listInvites',
      tags: [ACCOUNT_TAG],
      summary: 'Invites (admin)',
      response: { 200: InviteList, ...errorResponses(...SESSION_ERRORS) },
    }),
    async () => ({ items: await deps.services.users.listInvites() }),
  );
};
