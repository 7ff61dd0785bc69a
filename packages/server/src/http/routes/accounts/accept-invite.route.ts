/** POST /api/v1/auth/accept-invite: create an account from an invite link. */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { clientOf, signedInReply, signedOutRoute } from './context.js';
import { AcceptInviteBody, ACCOUNT_TAG, SignedIn as SignedInSchema } from './schemas.js';

export const acceptInviteRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/auth/accept-invite',
    signedOutRoute(
      {
        operationId: 'acceptInvite',
        tags: [ACCOUNT_TAG],
        summary: 'Create an account from an invite link',
        description:
          'Creates the invited account (the invite names its email and role) with this password and signs it in. ' +
          'An unknown or revoked token is 401 `unauthorized`; a used or expired one is 409 `conflict`.',
        body: AcceptInviteBody,
        response: {
          201: SignedInSchema,
          ...errorResponses('validation_failed', 'invalid_field', 'unauthorized', 'forbidden', 'conflict'),
        },
      },
      { sameOrigin: true },
    ),
    async (request, reply) => {
      const signed = await deps.services.accounts.acceptInvite(request.body, clientOf(request));
      return reply.code(201).send(signedInReply(app, reply, deps, signed));
    },
  );
};
