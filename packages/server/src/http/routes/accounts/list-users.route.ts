/** GET /api/v1/users: every user (admin). */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, adminOnly } from './context.js';
import { ACCOUNT_TAG, UserList } from './schemas.js';

// Users and invites: admins only.
export const listUsersRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/users',
    adminOnly({
      operationId: 'listUsers',
      tags: [ACCOUNT_TAG],
      summary: 'Every user (admin)',
      description:
        'Admins only (403 `forbidden` for others). Includes users made by `vesta admin create-key`, which have no email.',
      response: { 200: UserList, ...errorResponses(...SESSION_ERRORS) },
    }),
    async () => ({ items: await deps.services.users.listUsers() }),
  );
};
