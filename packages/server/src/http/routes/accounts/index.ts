/**
 * Dashboard accounts: first-run setup, sign-in/out, the current session, password and sessions,
 * API keys, users and invites. Every route here except the public ones (`auth: false`,
 * `sameOrigin: true`) accepts only a signed-in dashboard session, never an `X-API-Key`.
 */
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden, notFound } from '../../../errors.js';
import { SESSION_COOKIE, csrfTokenFor } from '../../../services/account.service.js';
import type { SessionAccount, SignedIn } from '../../../services/account.service.js';
import type { RouteModule } from '../../app-deps.js';
import { sessionTokenOf } from '../../auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  ACCOUNT_TAG,
  AcceptInviteBody,
  ApiKeyList,
  ChangePasswordBody,
  CreateApiKeyBody,
  CreateInviteBody,
  CreatedApiKey,
  CreatedInvite,
  IdParams,
  InviteList,
  KEYS_TAG,
  SetupBody,
  SetupState,
  SignInBody,
  SignedIn as SignedInSchema,
  User,
  UserList,
  WebSessionList,
} from './schemas.js';

function accountOf(request: FastifyRequest): SessionAccount {
  if (!request.account) throw new AppError('unauthorized', 'sign in to the dashboard first');
  return request.account;
}

function requireAdmin(request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void): void {
  if (request.account?.role !== 'admin') return done(forbidden('only an admin can do this'));
  done();
}

const noStore = (reply: FastifyReply): void => {
  reply.header('Cache-Control', 'no-store');
};

/** Session-only routes: the cookie (plus X-CSRF-Token on changes), never X-API-Key. */
const SESSION_SECURITY = [{ DashboardSession: [] }];

const SESSION_ERRORS = ['unauthorized', 'forbidden'] as const;

export const accountRoutes: RouteModule = (app, { deps }) => {
  const { accounts, apiKeys, users } = deps.services;
  const secure = deps.config.publicUrl.startsWith('https:');
  const maxAgeSeconds = deps.config.sessionMaxHours * 3600;
  const clientOf = (request: FastifyRequest) => ({
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  });
  const setSession = (reply: FastifyReply, signed: SignedIn) => {
    noStore(reply);
    // Serialised here: the cookie plugin's hooks are off (no cookie work on key requests).
    reply.header(
      'set-cookie',
      app.serializeCookie(SESSION_COOKIE, signed.token, {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: '/',
        maxAge: maxAgeSeconds,
      }),
    );
    return {
      user: signed.account,
      csrfToken: signed.csrfToken,
      expiresAt: new Date(signed.expiresAt).toISOString(),
    };
  };

  app.get(
    '/api/v1/auth/setup',
    {
      config: { auth: false },
      schema: {
        operationId: 'getSetupState',
        tags: [ACCOUNT_TAG],
        security: [],
        summary: 'Whether first-run setup is still open',
        description: 'No credential needed. `setupRequired` is true until the first admin account exists.',
        response: { 200: SetupState, ...errorResponses() },
      },
    },
    async (_request, reply) => {
      noStore(reply);
      return { setupRequired: await accounts.setupRequired() };
    },
  );

  app.post(
    '/api/v1/auth/setup',
    {
      config: { auth: false, sameOrigin: true },
      schema: {
        operationId: 'setupFirstAdmin',
        tags: [ACCOUNT_TAG],
        security: [],
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
    },
    async (request, reply) => {
      const signed = await accounts.setup(request.body, clientOf(request));
      return reply.code(201).send(setSession(reply, signed));
    },
  );

  app.post(
    '/api/v1/auth/sign-in',
    {
      config: { auth: false, sameOrigin: true },
      schema: {
        operationId: 'signIn',
        tags: [ACCOUNT_TAG],
        security: [],
        summary: 'Sign in to the dashboard',
        description:
          'Checks the email and password and sets the session cookie. A wrong email, a wrong password and a disabled account all answer the same 401 `unauthorized` ("wrong email or password"). ' +
          'After 5 failures for one email (20 for one IP) each further failure locks sign-in for that email (IP) for 30 s, doubling up to 15 min: 429 `rate_limited` with Retry-After, without checking the password.',
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
    },
    async (request, reply) => setSession(reply, await accounts.signIn(request.body, clientOf(request))),
  );

  app.post(
    '/api/v1/auth/accept-invite',
    {
      config: { auth: false, sameOrigin: true },
      schema: {
        operationId: 'acceptInvite',
        tags: [ACCOUNT_TAG],
        security: [],
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
    },
    async (request, reply) => {
      const signed = await accounts.acceptInvite(request.body, clientOf(request));
      return reply.code(201).send(setSession(reply, signed));
    },
  );

  app.get(
    '/api/v1/auth/session',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'getCurrentSession',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'The signed-in account and its CSRF token',
        description:
          'Session cookie only (an X-API-Key is 401). 401 `unauthorized` when not signed in or the session expired.',
        response: { 200: SignedInSchema, ...errorResponses(...SESSION_ERRORS) },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      noStore(reply);
      const { sessionId: _s, sessionExpiresAt, ...user } = account;
      return {
        user,
        csrfToken: csrfTokenFor(sessionTokenOf(request) ?? ''),
        expiresAt: new Date(sessionExpiresAt).toISOString(),
      };
    },
  );

  app.post(
    '/api/v1/auth/sign-out',
    {
      config: { auth: 'session', noBody: true },
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
      await accounts.signOut(accountOf(request).sessionId);
      reply.header(
        'set-cookie',
        app.serializeCookie(SESSION_COOKIE, '', {
          httpOnly: true,
          sameSite: 'lax',
          secure,
          path: '/',
          expires: new Date(0),
          maxAge: 0,
        }),
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/account/password',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'changePassword',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Change your password',
        description:
          'Needs the current password (a wrong one is 403 `forbidden`). Every other session of the account is signed out. Session cookie and X-CSRF-Token only.',
        body: ChangePasswordBody,
        response: {
          204: Type.Null({ description: 'Changed.' }),
          ...errorResponses('validation_failed', 'invalid_field', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      await accounts.changePassword(account.id, account.sessionId, request.body);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/account/sessions',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'listWebSessions',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Your signed-in dashboard sessions',
        response: { 200: WebSessionList, ...errorResponses(...SESSION_ERRORS) },
      },
    },
    async (request) => {
      const account = accountOf(request);
      return { items: await accounts.listSessions(account.id, account.sessionId) };
    },
  );

  app.delete(
    '/api/v1/account/sessions/:id',
    {
      config: { auth: 'session', noBody: true },
      schema: {
        operationId: 'revokeWebSession',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Sign one of your sessions out',
        description: "Another user's session is 403 `forbidden`; an unknown one 404 `not_found`.",
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Signed out.' }),
          ...errorResponses('invalid_field', 'not_found', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await accounts.revokeSession(accountOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  // API keys: session only, so that a leaked key can never mint or revoke keys.
  app.get(
    '/api/v1/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'listApiKeys',
        tags: [KEYS_TAG],
        security: SESSION_SECURITY,
        summary: 'Your API keys',
        description:
          'Keys not revoked, newest first (expired ones marked). Session cookie only: an X-API-Key is 401 `unauthorized`.',
        response: { 200: ApiKeyList, ...errorResponses(...SESSION_ERRORS) },
      },
    },
    async (request) => ({ items: await apiKeys.list(accountOf(request).id) }),
  );

  app.post(
    '/api/v1/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'createApiKey',
        tags: [KEYS_TAG],
        security: SESSION_SECURITY,
        summary: 'Create an API key',
        description:
          'Returns the whole key once (only its hash is stored). With `expiresInDays` the key answers 401 `unauthorized` after that. ' +
          'Session cookie and X-CSRF-Token only: an X-API-Key is 401 `unauthorized`.',
        body: CreateApiKeyBody,
        response: {
          201: CreatedApiKey,
          ...errorResponses('validation_failed', 'invalid_field', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { name, expiresInDays } = request.body;
      const created = await apiKeys.createKeyFor(account.id, {
        name: name.trim() || 'key',
        expiresAt: expiresInDays === undefined ? null : Date.now() + expiresInDays * 86_400_000,
      });
      const apiKey = (await apiKeys.list(account.id)).find((k) => k.id === created.id);
      noStore(reply);
      return reply.code(201).send({ key: created.key, apiKey: apiKey! });
    },
  );

  app.delete(
    '/api/v1/api-keys/:id',
    {
      config: { auth: 'session', noBody: true },
      schema: {
        operationId: 'revokeApiKey',
        tags: [KEYS_TAG],
        security: SESSION_SECURITY,
        summary: 'Revoke an API key',
        description:
          "The key answers 401 `unauthorized` from now on. Another user's key is 403 `forbidden`; an unknown or already revoked one 404 `not_found`. Session cookie and X-CSRF-Token only.",
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Revoked.' }),
          ...errorResponses('invalid_field', 'not_found', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const owner = await apiKeys.ownerOf(request.params.id);
      if (owner === undefined) throw notFound('API key');
      if (owner !== accountOf(request).id) throw forbidden('this API key is not yours');
      await apiKeys.revokeById(request.params.id);
      return reply.code(204).send(null);
    },
  );

  // Users and invites: admins only.
  app.get(
    '/api/v1/users',
    {
      config: { auth: 'session', admin: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'listUsers',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Every user (admin)',
        description:
          'Admins only (403 `forbidden` for others). Includes users made by `vesta admin create-key`, which have no email.',
        response: { 200: UserList, ...errorResponses(...SESSION_ERRORS) },
      },
    },
    async () => ({ items: await users.listUsers() }),
  );

  app.post(
    '/api/v1/users/:id/disable',
    {
      config: { auth: 'session', admin: true, noBody: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'disableUser',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Disable a user (admin)',
        description:
          'The user can no longer sign in; every session and API key of theirs is revoked at once (other processes within 5 s). Disabling yourself is 409 `conflict`.',
        params: IdParams,
        response: {
          200: User,
          ...errorResponses('invalid_field', 'not_found', 'conflict', ...SESSION_ERRORS),
        },
      },
    },
    async (request) => users.disableUser(accountOf(request).id, request.params.id),
  );

  app.get(
    '/api/v1/invites',
    {
      config: { auth: 'session', admin: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'listInvites',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Invites (admin)',
        response: { 200: InviteList, ...errorResponses(...SESSION_ERRORS) },
      },
    },
    async () => ({ items: await users.listInvites() }),
  );

  app.post(
    '/api/v1/invites',
    {
      config: { auth: 'session', admin: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'createInvite',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Invite a user (admin)',
        description: `Returns a single-use invite link for this email, valid for VESTA_INVITE_TTL_HOURS (default 72). The token is shown once. An email that already has an account is 409 \`conflict\`.`,
        body: CreateInviteBody,
        response: {
          201: CreatedInvite,
          ...errorResponses('validation_failed', 'invalid_field', 'conflict', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { invite, token } = await users.createInvite(accountOf(request).id, request.body);
      noStore(reply);
      return reply
        .code(201)
        .send({ invite, token, url: `${deps.config.publicUrl}/dashboard/invite#token=${token}` });
    },
  );

  app.delete(
    '/api/v1/invites/:id',
    {
      config: { auth: 'session', admin: true, noBody: true },
      preHandler: requireAdmin,
      schema: {
        operationId: 'revokeInvite',
        tags: [ACCOUNT_TAG],
        security: SESSION_SECURITY,
        summary: 'Revoke an open invite (admin)',
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Revoked.' }),
          ...errorResponses('invalid_field', 'not_found', ...SESSION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await users.revokeInvite(request.params.id);
      return reply.code(204).send(null);
    },
  );
};
