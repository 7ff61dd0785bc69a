/** POST /api/v1/users/:id/disable: disable a user (admin). */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, adminOnly } from './context.js';
import { ACCOUNT_TAG, IdParams, User } from './schemas.js';

export const disableUserRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/users/:id/disable',
    adminOnly(
      {
        operationId: 'disableUser',
        tags: [ACCOUNT_TAG],
        summary: 'Disable a user (admin)',
        description:
          'The user can no longer sign in; every session and API key of theirs is revoked at once (other processes within 5 s). Disabling yourself is 409 `conflict`.',
        params: IdParams,
        response: {
          200: User,
          ...errorResponses('invalid_field', 'not_found', 'conflict', ...SESSION_ERRORS),
        },
      },
      { noBody: true },
    ),
    async (request) => deps.services.users.disableUser(accountOf(request).id, request.params.id),
  );
};
