/** POST /api/v1/invites: invite a user (admin). */
import type { RouteModule } from '../../app-deps.js';
import { publicBaseOf } from '../../public-base.js';
import { errorResponses } from '../../schemas/common.js';
import { SESSION_ERRORS, accountOf, adminOnly, noStore } from './context.js';
import { ACCOUNT_TAG, CreatedInvite, CreateInviteBody } from './schemas.js';

export const createInviteRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/invites',
    adminOnly({
      operationId: 'createInvite',
      tags: [ACCOUNT_TAG],
      summary: 'Invite a user (admin)',
      description: `Returns a single-use invite link for this email, valid for VESTA_INVITE_TTL_HOURS (default 72). The token is shown once. An email that already has an account is 409 \`conflict\`.`,
      body: CreateInviteBody,
      response: {
        201: CreatedInvite,
        ...errorResponses('validation_failed', 'invalid_field', 'conflict', ...SESSION_ERRORS),
      },
    }),
    async (request, reply) => {
      // Before the invite is made: a Host that cannot carry the link refuses it whole.
      const base = publicBaseOf(request, deps.config);
      const { invite, token } = await deps.services.users.createInvite(accountOf(request).id, request.body);
      noStore(reply);
      return reply.code(201).send({ invite, token, url: `${base}/dashboard/invite#token=${token}` });
    },
  );
};
