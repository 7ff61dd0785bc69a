/** POST /api/v1/auth/sign-out: sign out. */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, SESSION_SECURITY, accountOf, clearSessionCookie } from './context.js';
import { ACCOUNT_TAG } from './schemas.js';

export const signOutRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/auth/sign-out',
    {
      config: { auth: 'web-session', noBody: true },
      schema: {
        operationId: 'signOut',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Sign out',
        description: 'Ends this dashboard session and clears the cookie. Needs X-CSRF-Token.',
        response: {
          204: Type.Null({ description: 'Signed out.' }),
          ...errorResponses('invalid_field', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await deps.services.accounts.signOut(accountOf(request).webSessionId);
      clearSessionCookie(app, reply, deps);
      return reply.code(204).send(null);
    },
  );
};
