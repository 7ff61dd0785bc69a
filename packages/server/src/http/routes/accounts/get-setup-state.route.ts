/** GET /api/v1/auth/setup: whether first-run setup is still open. */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { noStore, signedOutRoute } from './context.js';
import { ACCOUNT_TAG, SetupState } from './schemas.js';

// Serialised here: the cookie plugin's hooks are off (no cookie work on key requests).
export const getSetupStateRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/auth/setup',
    signedOutRoute({
      operationId: 'getSetupState',
      tags: [ACCOUNT_TAG],
      summary: 'Whether first-run setup is still open',
      description: 'No credential needed. `setupRequired` is true until the first admin account exists.',
      response: { 200: SetupState, ...errorResponses() },
    }),
    async (_request, reply) => {
      noStore(reply);
      return { setupRequired: await deps.services.accounts.setupRequired() };
    },
  );
};
