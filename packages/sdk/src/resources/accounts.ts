/**
 * The web dashboard's account operations: first-run setup, sign-in/out, the current session,
 * password and sessions, API keys, users and invites. Every operation except the public ones
 * (`auth.setupState`, `auth.setup`, `auth.signIn`, `auth.acceptInvite`) needs a client made with
 * `{ session: true }` in a page served by the Vesta server: the server refuses an `X-API-Key` on
 * them (a key can never mint keys). Signing in stores the session's CSRF token in the client, which
 * then sends it as `X-CSRF-Token` on every state-changing request.
 */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type { operations } from '../generated/openapi.generated.js';

type Json<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer T } } ? T : never;
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** A signed-in session: the account, its CSRF token and when it ends unless used. */
export type SignedIn = Json<'signIn', 200>;
export type Account = SignedIn['user'];
export type SetupState = Json<'getSetupState', 200>;
export type SetupRequest = Body<'setupFirstAdmin'>;
export type SignInRequest = Body<'signIn'>;
export type AcceptInviteRequest = Body<'acceptInvite'>;
export type ChangePasswordRequest = Body<'changePassword'>;
export type WebSession = Json<'listWebSessions', 200>['items'][number];
export type ApiKeyInfo = Json<'listApiKeys', 200>['items'][number];
export type CreateApiKeyRequest = Body<'createApiKey'>;
export type CreatedApiKey = Json<'createApiKey', 201>;
export type UserInfo = Json<'listUsers', 200>['items'][number];
export type InviteInfo = Json<'listInvites', 200>['items'][number];
export type CreateInviteRequest = Body<'createInvite'>;
export type CreatedInvite = Json<'createInvite', 201>;

const enc = encodeURIComponent;
/** Sign-in and setup are never retried: a retry would count as another failed attempt. */
const once = (opts?: RequestOptions): RequestOptions => ({ ...opts, maxRetries: 0 });

export class AuthResource {
  constructor(private readonly http: HttpClient) {}

  /** Whether first-run setup is still open (no credential needed). */
  setupState(opts?: RequestOptions): Promise<SetupState> {
    return this.http.json({ method: 'GET', path: '/api/v1/auth/setup' }, opts);
  }

  /** Creates the first admin and signs it in (first run only; 409 afterwards). */
  async setup(body: SetupRequest, opts?: RequestOptions): Promise<SignedIn> {
    return this.remember(
      await this.http.json<SignedIn>({ method: 'POST', path: '/api/v1/auth/setup', body }, once(opts)),
    );
  }

  /** Signs in; a wrong email or password is `UnauthorizedError`, a lockout `RateLimitedError`. */
  async signIn(body: SignInRequest, opts?: RequestOptions): Promise<SignedIn> {
    return this.remember(
      await this.http.json<SignedIn>({ method: 'POST', path: '/api/v1/auth/sign-in', body }, once(opts)),
    );
  }

  /** Creates the invited account and signs it in. */
  async acceptInvite(body: AcceptInviteRequest, opts?: RequestOptions): Promise<SignedIn> {
    return this.remember(
      await this.http.json<SignedIn>(
        { method: 'POST', path: '/api/v1/auth/accept-invite', body },
        once(opts),
      ),
    );
  }

  /** The signed-in account (`UnauthorizedError` when not signed in); refreshes the CSRF token. */
  async session(opts?: RequestOptions): Promise<SignedIn> {
    return this.remember(
      await this.http.json<SignedIn>({ method: 'GET', path: '/api/v1/auth/session' }, opts),
    );
  }

  async signOut(opts?: RequestOptions): Promise<void> {
    await this.http.json({ method: 'POST', path: '/api/v1/auth/sign-out' }, opts);
    this.http.setCsrfToken(undefined);
  }

  private remember(signed: SignedIn): SignedIn {
    this.http.setCsrfToken(signed.csrfToken);
    return signed;
  }
}

export class AccountResource {
  constructor(private readonly http: HttpClient) {}

  /** Changes the password; every other session of the account is signed out. */
  changePassword(body: ChangePasswordRequest, opts?: RequestOptions): Promise<void> {
    return this.http.json({ method: 'POST', path: '/api/v1/account/password', body }, once(opts));
  }

  sessions(opts?: RequestOptions): Promise<{ items: WebSession[] }> {
    return this.http.json({ method: 'GET', path: '/api/v1/account/sessions' }, opts);
  }

  revokeSession(id: string, opts?: RequestOptions): Promise<void> {
    return this.http.json({ method: 'DELETE', path: `/api/v1/account/sessions/${enc(id)}` }, opts);
  }
}

export class ApiKeysResource {
  constructor(private readonly http: HttpClient) {}

  list(opts?: RequestOptions): Promise<{ items: ApiKeyInfo[] }> {
    return this.http.json({ method: 'GET', path: '/api/v1/api-keys' }, opts);
  }

  /** Creates a key; `key` in the answer is the whole key, shown this once. */
  create(body: CreateApiKeyRequest, opts?: RequestOptions): Promise<CreatedApiKey> {
    return this.http.json({ method: 'POST', path: '/api/v1/api-keys', body }, opts);
  }

  revoke(id: string, opts?: RequestOptions): Promise<void> {
    return this.http.json({ method: 'DELETE', path: `/api/v1/api-keys/${enc(id)}` }, opts);
  }
}

export class UsersResource {
  constructor(private readonly http: HttpClient) {}

  /** Every user (admin only). */
  list(opts?: RequestOptions): Promise<{ items: UserInfo[] }> {
    return this.http.json({ method: 'GET', path: '/api/v1/users' }, opts);
  }

  /** Disables a user: sessions and keys revoked (admin only). */
  disable(id: string, opts?: RequestOptions): Promise<UserInfo> {
    return this.http.json({ method: 'POST', path: `/api/v1/users/${enc(id)}/disable` }, opts);
  }
}

export class InvitesResource {
  constructor(private readonly http: HttpClient) {}

  list(opts?: RequestOptions): Promise<{ items: InviteInfo[] }> {
    return this.http.json({ method: 'GET', path: '/api/v1/invites' }, opts);
  }

  /** Creates a single-use invite link (admin only); the token is shown this once. */
  create(body: CreateInviteRequest, opts?: RequestOptions): Promise<CreatedInvite> {
    return this.http.json({ method: 'POST', path: '/api/v1/invites', body }, opts);
  }

  revoke(id: string, opts?: RequestOptions): Promise<void> {
    return this.http.json({ method: 'DELETE', path: `/api/v1/invites/${enc(id)}` }, opts);
  }
}
