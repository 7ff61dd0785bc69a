/** POST /api/v1/auth/setup: create the first admin account (first run only). */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { clientOf, signedInReply, signedOutRoute } from './context.js';
import { ACCOUNT_TAG, SetupBody, SignedIn as SignedInSchema } from './schemas.js';

export const setupFirstAdminRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/auth/setup',
    signedOutRoute(
      {
        operationId: 'setupFirstAdmin',
        tags: [ACCOUNT_TAG],
        summary: 'Create the first admin account (first run only)',
        description:
          'Creates the first admin (email and a password of at least 10 characters) and signs it in (sets the session cookie). ' +
          'Works once: afterwards, and for the loser of two simultaneous calls, it is 409 `conflict`. Refused (403) from another origin.',
        body: SetupBody,
        response: {
          201: SignedInSchema,
          ...errorResponses('validation_failed', 'invalid_field', 'forbidden', 'conflict'),
        },
      },
      { sameOrigin: true },
    ),
    async (request, reply) => {
      const signed = await deps.services.accounts.setup(request.body, clientOf(request));
      return reply.code(201).send(signedInReply(app, reply, deps, signed));
    },
  );
};
