/** POST /api/v1/account/password: change your password. */
import type { RouteModule } from '../../app-deps.js';
import { noContentResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, sessionOnly } from './context.js';
import { ACCOUNT_TAG, ChangePasswordBody } from './schemas.js';

export const changePasswordRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/account/password',
    sessionOnly({
      operationId: 'changePassword',
      tags: [ACCOUNT_TAG],
      summary: 'Change your password',
      description:
        'Needs the current password (a wrong one is 403 `forbidden`). Every other session of the account is signed out. Session cookie and X-CSRF-Token only.',
      body: ChangePasswordBody,
      response: noContentResponses('Changed.', 'validation_failed', 'invalid_field', ...SESSION_ERRORS),
    }),
    async (request, reply) => {
      const account = accountOf(request);
      await deps.services.accounts.changePassword(account.id, account.webSessionId, request.body);
      return reply.code(204).send(null);
    },
  );
};
