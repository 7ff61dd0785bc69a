/** GET /api/v1/auth/session: the signed-in account and its CSRF token. */
import { csrfTokenFor } from '../../../services/account.service.js';
import type { RouteModule } from '../../app-deps.js';
import { webSessionTokenOf } from '../../auth.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, noStore, sessionOnly } from './context.js';
import { ACCOUNT_TAG, SignedIn as SignedInSchema } from './schemas.js';

export const getCurrentSessionRoute: RouteModule = (app) => {
  app.get(
    '/api/v1/auth/session',
    sessionOnly({
      operationId: 'getCurrentSession',
      tags: [ACCOUNT_TAG],
      summary: 'The signed-in account and its CSRF token',
      description:
        'Session cookie only (an X-API-Key is 401). 401 `unauthorized` when not signed in or the session expired.',
      response: { 200: SignedInSchema, ...errorResponses(...SESSION_ERRORS) },
    }),
    async (request, reply) => {
      const account = accountOf(request);
      noStore(reply);
      const { webSessionId: _s, webSessionExpiresAt, ...user } = account;
      return {
        user,
        csrfToken: csrfTokenFor(webSessionTokenOf(request) ?? ''),
        expiresAt: new Date(webSessionExpiresAt).toISOString(),
      };
    },
  );
};
