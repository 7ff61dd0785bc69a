/** GET /api/v1/account/sessions: Your signed-in dashboard sessions. */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, sessionOnly } from './context.js';
import { ACCOUNT_TAG, WebSessionList } from './schemas.js';

export const listWebSessionsRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/account/sessions',
    sessionOnly({
      operationId: 'listWebSessions',
      tags: [ACCOUNT_TAG],
      summary: 'Your signed-in dashboard sessions',
      response: { 200: WebSessionList, ...errorResponses(...SESSION_ERRORS) },
    }),
    async (request) => {
      const account = accountOf(request);
      return { items: await deps.services.accounts.listWebSessions(account.id, account.webSessionId) };
    },
  );
};
