/**
 * What the dashboard account routes share: the signed-in account of a request, the admin check, the
 * session cookie (set on sign-in, cleared on sign-out) and the OpenAPI security of session-only
 * routes. Every account route except the public ones (`auth: false`, `sameOrigin: true`) accepts
 * only a signed-in dashboard session, never an `X-API-Key`.
 */
import type { FastifyContextConfig, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { AppError, forbidden } from '../../../errors.js';
import { WEB_SESSION_COOKIE } from '../../../services/account.service.js';
import type { WebSessionAccount, SignedIn } from '../../../services/account.service.js';
import type { AppDeps, TypedApp } from '../../app-deps.js';

/** Session-only routes: the cookie (plus X-CSRF-Token on changes), never X-API-Key. */
export const SESSION_SECURITY = [{ DashboardSession: [] }];

export const SESSION_ERRORS = ['unauthorized', 'forbidden'] as const;

/**
 * The options of a route for a caller not signed in (no key, no session; no OpenAPI security),
 * with its own config (`sameOrigin` for the sign-in forms).
 */
export function signedOutRoute<S extends FastifySchema>(schema: S, config: FastifyContextConfig = {}) {
  return { config: { auth: false, ...config }, schema: { security: [], ...schema } };
}

/** The options of a session-only route: its auth config and its OpenAPI security, with its own. */
export function sessionOnly<S extends FastifySchema>(schema: S, config: FastifyContextConfig = {}) {
  return {
    config: { auth: 'web-session' as const, ...config },
    schema: { security: SESSION_SECURITY, ...schema },
  };
}

/** The options of a session-only route for admins: anyone else is 403 `forbidden` before the handler. */
export function adminOnly<S extends FastifySchema>(schema: S, config: FastifyContextConfig = {}) {
  return { ...sessionOnly(schema, { admin: true, ...config }), preHandler: requireAdmin };
}

export function accountOf(request: FastifyRequest): WebSessionAccount {
  if (!request.account) throw new AppError('unauthorized', 'sign in to the dashboard first');
  return request.account;
}

export function requireAdmin(request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void): void {
  if (request.account?.role !== 'admin') return done(forbidden('only an admin can do this'));
  done();
}

export function noStore(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store');
}

/** Who signs in: recorded with the session (listed in the dashboard). */
export function clientOf(request: FastifyRequest): { ip: string; userAgent: string | undefined } {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}

/** Cookies are Secure where the public URL is https (a service reached by its request's origin is plain http). */
const secureCookies = (deps: AppDeps): boolean => deps.config.publicUrl?.startsWith('https:') ?? false;

/** Sets the session cookie of a sign-in and returns the `SignedIn` body. */
export function signedInReply(app: TypedApp, reply: FastifyReply, deps: AppDeps, signed: SignedIn) {
  noStore(reply);
  // Serialised here: the cookie plugin's hooks are off (no cookie work on key requests).
  reply.header(
    'set-cookie',
    app.serializeCookie(WEB_SESSION_COOKIE, signed.token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies(deps),
      path: '/',
      maxAge: deps.config.sessionMaxHours * 3600,
    }),
  );
  return {
    user: signed.account,
    csrfToken: signed.csrfToken,
    expiresAt: new Date(signed.expiresAt).toISOString(),
  };
}

/** Clears the session cookie (sign-out). */
export function clearSessionCookie(app: TypedApp, reply: FastifyReply, deps: AppDeps): void {
  reply.header(
    'set-cookie',
    app.serializeCookie(WEB_SESSION_COOKIE, '', {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies(deps),
      path: '/',
      expires: new Date(0),
      maxAge: 0,
    }),
  );
}
