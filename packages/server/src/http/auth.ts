/**
 * Authentication of every /api/v1 route (routes opt out with `config.auth: false`).
 *
 * - An `X-API-Key` header is checked first, exactly as before the dashboard existed: a missing,
 *   malformed, unknown, revoked or expired key is 401 `unauthorized`; the key is never logged.
 *   Nothing else runs for a key-authenticated request (no cookie parsing, no database write).
 * - Without a key, the dashboard's session cookie is accepted (the dashboard calls the same API
 *   through the browser SDK). A cookie is accepted only from the dashboard's own origin (`Origin`
 *   and `Sec-Fetch-Site` are checked), and a state-changing request (anything but GET/HEAD) must
 *   carry the session's CSRF token in `X-CSRF-Token`; otherwise 403 `forbidden`.
 * - Routes marked `config.auth: 'web-session'` (key management, account, users) accept only the
 *   cookie: an `X-API-Key` there is 401 `unauthorized`, so a leaked key can never mint keys.
 * - Public account routes (`config.sameOrigin: true`: setup, sign-in, accepting an invite) need no
 *   credential but refuse cross-origin browsers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { AccountService, WebSessionAccount } from '../services/account.service.js';
import { WEB_SESSION_COOKIE, csrfMatches } from '../services/account.service.js';
import type { ApiKeyService } from '../services/api-key.service.js';
import { appendRouteHook } from './route-hooks.js';

export const API_PREFIX = '/api/v1';
export const CSRF_HEADER = 'x-csrf-token';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request was authenticated by a dashboard session cookie. */
    account: WebSessionAccount | null;
  }
}

type Done = (e?: Error) => void;

export interface AuthOptions {
  apiKeys: ApiKeyService;
  accounts: AccountService;
  /** The origin the dashboard is served from (VESTA_PUBLIC_URL's); null: the one each request came to. */
  publicOrigin: string | null;
}

/** True when the browser says the request comes from another site or origin. */
export function crossOrigin(request: FastifyRequest, publicOrigin: string | null): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === publicOrigin) return false;
  // The page may be opened under another name than VESTA_PUBLIC_URL (localhost vs 127.0.0.1):
  // an Origin naming the very host the request was sent to is the same origin.
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

export function webSessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || !header.includes(WEB_SESSION_COOKIE)) return undefined;
  const value = request.server.parseCookie(header)[WEB_SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const { apiKeys, accounts, publicOrigin } = options;
  app.decorateRequest('user', null);
  app.decorateRequest('account', null);

  const byWebSession = (request: FastifyRequest, done: Done): void => {
    if (crossOrigin(request, publicOrigin))
      return done(new AppError('forbidden', 'cross-origin requests cannot use the dashboard session'));
    const token = webSessionTokenOf(request);
    if (token === undefined)
      return done(new AppError('unauthorized', 'missing X-API-Key header (or dashboard session)'));
    accounts.authenticate(token).then(
      (account) => {
        if (!account)
          return done(new AppError('unauthorized', 'the dashboard session has expired: sign in again'));
        if (request.method !== 'GET' && request.method !== 'HEAD') {
          const csrf = request.headers[CSRF_HEADER];
          if (!csrfMatches(token, Array.isArray(csrf) ? undefined : csrf))
            return done(
              new AppError('forbidden', 'missing or wrong X-CSRF-Token for this dashboard session'),
            );
        }
        request.account = account;
        request.user = { id: account.id, name: account.name };
        done();
      },
      (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
    );
  };

  // A callback hook, not an async one: a key seen in the last few seconds is answered from the
  // key cache without a promise, which is what most requests of a polling client are.
  const authenticate = (request: FastifyRequest, _reply: FastifyReply, done: Done): void => {
    // CORS preflights carry no key.
    if (request.method === 'OPTIONS') return done();
    const header = request.headers['x-api-key'];
    if (header === undefined) return byWebSession(request, done);
    const presented = Array.isArray(header) ? undefined : header;
    if (presented === undefined || presented === '')
      return done(new AppError('unauthorized', 'missing X-API-Key header'));
    const hit = apiKeys.cached(presented);
    if (hit !== undefined) {
      request.user = hit;
      return done();
    }
    apiKeys.authenticate(presented).then(
      (user) => {
        if (!user) return done(new AppError('unauthorized', 'invalid API key'));
        request.user = user;
        done();
      },
      (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
    );
  };

  const webSessionOnly = (request: FastifyRequest, _reply: FastifyReply, done: Done): void => {
    if (request.method === 'OPTIONS') return done();
    if (request.headers['x-api-key'] !== undefined)
      return done(
        new AppError(
          'unauthorized',
          'this route accepts only a signed-in dashboard session: API keys cannot manage keys or accounts',
        ),
      );
    byWebSession(request, done);
  };

  const sameOrigin = (request: FastifyRequest, _reply: FastifyReply, done: Done): void => {
    if (crossOrigin(request, publicOrigin))
      return done(new AppError('forbidden', 'cross-origin requests cannot sign in to the dashboard'));
    done();
  };

  // Every /api/v1 route gets the check unless it opts out; unknown routes answer 404.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX)) return;
    const mode = route.config?.auth;
    if (mode === 'web-session') appendRouteHook(route, 'onRequest', webSessionOnly);
    else if (mode !== false) appendRouteHook(route, 'onRequest', authenticate);
    if (route.config?.sameOrigin === true) appendRouteHook(route, 'onRequest', sameOrigin);
  });
}
