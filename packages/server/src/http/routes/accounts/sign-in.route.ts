/** POST /api/v1/auth/sign-in: sign in to the dashboard. */
import type { RouteModule } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { clientOf, signedInReply, signedOutRoute } from './context.js';
import { ACCOUNT_TAG, SignedIn as SignedInSchema, SignInBody } from './schemas.js';

export const signInRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/auth/sign-in',
    signedOutRoute(
      {
        operationId: 'signIn',
        tags: [ACCOUNT_TAG],
        summary: 'Sign in to the dashboard',
        description:
          'Checks the email and password and sets the session cookie. A wrong email, a wrong password and a disabled account all answer the same 401 `unauthorized` ("wrong email or password"). ' +
          'After 5 failures for one email (20 for one IP) each further failure locks sign-in for that email (IP) for 30 s, doubling up to 15 min: 429 `rate_limited` with Retry-After (seconds) and the wait in words in `detail` (`too many failed sign-ins: try again in 30 seconds (after 2026-01-31T12:00:30Z)`), without checking the password.',
        body: SignInBody,
        response: {
          200: SignedInSchema,
          ...errorResponses(
            'validation_failed',
            'invalid_field',
            'unauthorized',
            'forbidden',
            'rate_limited',
          ),
        },
      },
      { sameOrigin: true },
    ),
    async (request, reply) =>
      signedInReply(app, reply, deps, await deps.services.accounts.signIn(request.body, clientOf(request))),
  );
};
