/** POST /api/v1/auth/sign-out: sign out. */
import type { RouteModule } from '../../app-deps.js';
import { noContentResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, clearSessionCookie, sessionOnly } from './context.js';
import { ACCOUNT_TAG } from './schemas.js';

export const signOutRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/auth/sign-out',
    sessionOnly(
      {
        operationId: 'signOut',
        tags: [ACCOUNT_TAG],
        summary: 'Sign out',
        description: 'Ends this dashboard session and clears the cookie. Needs X-CSRF-Token.',
        response: noContentResponses('Signed out.', 'invalid_field', ...SESSION_ERRORS),
      },
      { noBody: true },
    ),
    async (request, reply) => {
      await deps.services.accounts.signOut(accountOf(request).webSessionId);
      clearSessionCookie(app, reply, deps);
      return reply.code(204).send(null);
    },
  );
};
