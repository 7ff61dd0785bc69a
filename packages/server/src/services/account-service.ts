/**
 * Dashboard accounts: first-run setup, sign-in and sign-out, server-side web sessions, password
 * changes, invites, and disabling users. Passwords are scrypt hashes (services/passwords.ts); a
 * session's cookie carries a random token of which only the SHA-256 is stored; an invite's token
 * likewise. The CSRF token of a session is an HMAC of its cookie token, so it needs no storage and
 * changes with every session.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/connection.js';
import type { Account, InviteView, UserRole, UserView, WebSessionView } from '../domain/views/accounts.js';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { ApiKeyService } from './api-key-service.js';
import { LoginThrottle } from './login-throttle.js';
import { RateLimitStore } from './rate-limit-store.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';

export const SESSION_COOKIE = 'vesta_session';
/** last_seen_at is written at most this often per session (not on every dashboard request). */
const TOUCH_EVERY_MS = 60_000;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

export interface AccountOptions {
  /** A session not used for this long is signed out. */
  sessionIdleMs: number;
  /** A session ends this long after sign-in, used or not. */
  sessionMaxMs: number;
  /** An invite link works for this long. */
  inviteTtlMs: number;
}

export interface SignedIn {
  account: Account;
  /** The cookie's value: shown to the browser once, never stored. */
  token: string;
  csrfToken: string;
  sessionId: string;
  expiresAt: number;
}

export interface SessionAccount extends Account {
  sessionId: string;
  sessionExpiresAt: number;
}

export interface ClientInfo {
  ip: string;
  userAgent: string | undefined;
}

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The CSRF token that goes with a session's cookie token. */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('vesta-csrf-v1').digest('base64url');
}

/** Constant-time check of a presented CSRF token against the session's. */
export function csrfMatches(sessionToken: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const got = Buffer.from(presented);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email)) throw validationFailed('email must look like name@example.com');
  return email;
}

function requirePassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw validationFailed(problem);
}

/** A user name for a new account: the email, or its local part with a suffix when taken. */
async function freeUserName(db: Db, email: string, wanted: string | undefined): Promise<string> {
  const base = (wanted?.trim() || email).slice(0, 64);
  for (let i = 0; ; i++) {
    const name = i === 0 ? base : `${base.slice(0, 58)}-${i}`;
    const taken = await db.selectFrom('users').select('id').where('name', '=', name).executeTakeFirst();
    if (!taken) return name;
  }
}

export class AccountService {
  readonly throttle: LoginThrottle;

  constructor(
    private readonly db: Db,
    private readonly apiKeys: ApiKeyService,
    private readonly options: AccountOptions,
    private readonly now: () => number = Date.now,
    throttle?: LoginThrottle,
  ) {
    this.throttle = throttle ?? new LoginThrottle(new RateLimitStore(db, now));
  }

  /** True while no account has a password (the setup page is open). */
  async setupRequired(): Promise<boolean> {
    const done = await this.db.selectFrom('account_setup').select('id').executeTakeFirst();
    return done === undefined;
  }

  /**
   * Creates the first admin and signs it in. Only one caller ever wins: the setup row's primary
   * key is claimed in the same transaction; everyone else gets 409 `conflict`.
   */
  async setup(
    input: { email: string; password: string; name?: string },
    client: ClientInfo,
  ): Promise<SignedIn> {
    const email = normaliseEmail(input.email);
    requirePassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const t = this.now();
    const userId = await this.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto('account_setup')
        .values({ id: 1, completed_at: t })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) !== 1)
        throw conflict('setup is already done: sign in, or ask an admin for an invite');
      const id = randomUUID();
      await trx
        .insertInto('users')
        .values({
          id,
          name: await freeUserName(trx, email, input.name),
          created_at: t,
          email,
          password_hash: passwordHash,
          role: 'admin',
          disabled_at: null,
        })
        .execute();
      return id;
    });
    return this.startSession(userId, client);
  }

  /** Signs in; wrong email, wrong password and a disabled user all answer the same 401. */
  async signIn(input: { email: string; password: string }, client: ClientInfo): Promise<SignedIn> {
    const email = input.email.trim().toLowerCase();
    const wait = await this.throttle.retryAfterMs(email, client.ip);
    if (wait > 0)
      throw new AppError('rate_limited', 'too many failed sign-ins: wait before trying again', {
        retryAfterSeconds: Math.ceil(wait / 1000),
      });
    const user = await this.db
      .selectFrom('users')
      .select(['id', 'password_hash', 'disabled_at'])
      .where('email', '=', email)
      .executeTakeFirst();
    const ok = await verifyPassword(input.password, user?.password_hash ?? null);
    if (!user || !ok || user.disabled_at !== null) {
      await this.throttle.failed(email, client.ip);
      throw new AppError('unauthorized', 'wrong email or password');
    }
    await this.throttle.succeeded(email);
    return this.startSession(user.id, client);
  }

  /** The signed-in account behind a cookie token, or null (unknown, expired, idle, disabled). */
  async authenticate(token: string): Promise<SessionAccount | null> {
    if (token.length < 20 || token.length > 200) return null;
    const row = await this.db
      .selectFrom('web_sessions')
      .innerJoin('users', 'users.id', 'web_sessions.user_id')
      .select([
        'web_sessions.id as sessionId',
        'web_sessions.last_seen_at',
        'web_sessions.expires_at',
        'users.id',
        'users.name',
        'users.email',
        'users.role',
        'users.disabled_at',
      ])
      .where('web_sessions.token_hash', '=', sha256(token))
      .executeTakeFirst();
    if (!row) return null;
    const t = this.now();
    const lastSeen = Number(row.last_seen_at);
    const expiresAt = Number(row.expires_at);
    if (
      row.disabled_at !== null ||
      expiresAt <= t ||
      t - lastSeen >= this.options.sessionIdleMs ||
      !row.email
    ) {
      await this.db.deleteFrom('web_sessions').where('id', '=', row.sessionId).execute();
      return null;
    }
    if (t - lastSeen >= TOUCH_EVERY_MS)
      await this.db
        .updateTable('web_sessions')
        .set({ last_seen_at: t })
        .where('id', '=', row.sessionId)
        .execute();
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      role: row.role,
      sessionId: row.sessionId,
      sessionExpiresAt: Math.min(expiresAt, t + this.options.sessionIdleMs),
    };
  }

  async signOut(sessionId: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id', '=', sessionId).execute();
  }

  async account(userId: string): Promise<Account> {
    const row = await this.db
      .selectFrom('users')
      .select(['id', 'name', 'email', 'role'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return { id: row.id, name: row.name, email: row.email ?? '', role: row.role };
  }

  async listSessions(userId: string, currentSessionId: string): Promise<WebSessionView[]> {
    const t = this.now();
    const rows = await this.db
      .selectFrom('web_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('expires_at', '>', t)
      .where('last_seen_at', '>', t - this.options.sessionIdleMs)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      createdAt: iso(r.created_at)!,
      lastSeenAt: iso(r.last_seen_at)!,
      expiresAt: iso(Math.min(Number(r.expires_at), Number(r.last_seen_at) + this.options.sessionIdleMs))!,
      userAgent: r.user_agent,
      ip: r.ip,
      current: r.id === currentSessionId,
    }));
  }

  async revokeSession(userId: string, sessionId: string): Promise<void> {
    const row = await this.db
      .selectFrom('web_sessions')
      .select('user_id')
      .where('id', '=', sessionId)
      .executeTakeFirst();
    if (!row) throw notFound('session');
    if (row.user_id !== userId) throw forbidden('this session is not yours');
    await this.db.deleteFrom('web_sessions').where('id', '=', sessionId).execute();
  }

  /** Changes the caller's password; every other session of theirs is signed out. */
  async changePassword(
    userId: string,
    currentSessionId: string,
    input: { currentPassword: string; newPassword: string },
  ): Promise<void> {
    requirePassword(input.newPassword);
    const user = await this.db
      .selectFrom('users')
      .select(['password_hash'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    if (!(await verifyPassword(input.currentPassword, user.password_hash)))
      throw forbidden('the current password is wrong');
    const passwordHash = await hashPassword(input.newPassword);
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
      await trx
        .deleteFrom('web_sessions')
        .where('user_id', '=', userId)
        .where('id', '!=', currentSessionId)
        .execute();
    });
  }

  async listUsers(): Promise<UserView[]> {
    const rows = await this.db
      .selectFrom('users')
      .select(['id', 'name', 'email', 'role', 'created_at', 'disabled_at'])
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      role: r.role,
      createdAt: iso(r.created_at)!,
      disabledAt: iso(r.disabled_at),
    }));
  }

  /** Disables a user: no more sign-in; every session and API key of theirs is revoked at once. */
  async disableUser(adminId: string, userId: string): Promise<UserView> {
    if (adminId === userId) throw conflict('you cannot disable your own account');
    const user = await this.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!user) throw notFound('user');
    await this.disable(userId);
    const view = (await this.listUsers()).find((u) => u.id === userId);
    return view!;
  }

  /** Disables by id (also used by `vesta admin disable-user`). */
  async disable(userId: string): Promise<void> {
    const t = this.now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ disabled_at: t })
        .where('id', '=', userId)
        .where('disabled_at', 'is', null)
        .execute();
      await trx.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
    });
    await this.apiKeys.revokeAllOf(userId);
  }

  async createInvite(
    adminId: string,
    input: { email: string; role?: UserRole },
  ): Promise<{ invite: InviteView; token: string }> {
    const email = normaliseEmail(input.email);
    const taken = await this.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirst();
    if (taken) throw conflict(`an account with the email ${email} already exists`);
    const token = randomBytes(32).toString('base64url');
    const t = this.now();
    const row = {
      id: randomUUID(),
      token_hash: sha256(token),
      email,
      role: input.role ?? 'user',
      created_by: adminId,
      created_at: t,
      expires_at: t + this.options.inviteTtlMs,
      used_at: null,
      revoked_at: null,
    };
    await this.db.insertInto('invites').values(row).execute();
    return { invite: inviteView(row), token };
  }

  async listInvites(): Promise<InviteView[]> {
    const rows = await this.db.selectFrom('invites').selectAll().orderBy('created_at', 'desc').execute();
    return rows.map(inviteView);
  }

  async revokeInvite(inviteId: string): Promise<void> {
    const res = await this.db
      .updateTable('invites')
      .set({ revoked_at: this.now() })
      .where('id', '=', inviteId)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw notFound('open invite');
  }

  /** Accepts an invite: creates the account and signs it in. The token works once, before it expires. */
  async acceptInvite(
    input: { token: string; password: string; name?: string },
    client: ClientInfo,
  ): Promise<SignedIn> {
    requirePassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const t = this.now();
    const userId = await this.db.transaction().execute(async (trx) => {
      const invite = await trx
        .selectFrom('invites')
        .selectAll()
        .where('token_hash', '=', sha256(input.token))
        .executeTakeFirst();
      if (!invite || invite.revoked_at !== null)
        throw new AppError('unauthorized', 'this invite link is not valid');
      if (invite.used_at !== null) throw conflict('this invite link has already been used');
      if (Number(invite.expires_at) <= t) throw conflict('this invite link has expired: ask for a new one');
      const claimed = await trx
        .updateTable('invites')
        .set({ used_at: t })
        .where('id', '=', invite.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw conflict('this invite link has already been used');
      const taken = await trx
        .selectFrom('users')
        .select('id')
        .where('email', '=', invite.email)
        .executeTakeFirst();
      if (taken) throw conflict(`an account with the email ${invite.email} already exists`);
      const id = randomUUID();
      await trx
        .insertInto('users')
        .values({
          id,
          name: await freeUserName(trx, invite.email, input.name),
          created_at: t,
          email: invite.email,
          password_hash: passwordHash,
          role: invite.role,
          disabled_at: null,
        })
        .execute();
      return id;
    });
    return this.startSession(userId, client);
  }

  /**
   * `vesta admin create-user`: creates an account (or gives an email and password to an existing
   * user made by `create-key`, named `name`). The first admin made this way closes first-run setup.
   */
  async createUser(input: {
    email: string;
    password: string;
    role: UserRole;
    name?: string;
  }): Promise<UserView> {
    const email = normaliseEmail(input.email);
    requirePassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const t = this.now();
    const id = await this.db.transaction().execute(async (trx) => {
      const taken = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
      if (taken) throw conflict(`an account with the email ${email} already exists`);
      const existing =
        input.name === undefined
          ? undefined
          : await trx
              .selectFrom('users')
              .select(['id', 'email'])
              .where('name', '=', input.name)
              .executeTakeFirst();
      let userId: string;
      if (existing) {
        if (existing.email !== null) throw conflict(`the user ${input.name} already has an email`);
        await trx
          .updateTable('users')
          .set({ email, password_hash: passwordHash, role: input.role })
          .where('id', '=', existing.id)
          .execute();
        userId = existing.id;
      } else {
        userId = randomUUID();
        await trx
          .insertInto('users')
          .values({
            id: userId,
            name: await freeUserName(trx, email, input.name),
            created_at: t,
            email,
            password_hash: passwordHash,
            role: input.role,
            disabled_at: null,
          })
          .execute();
      }
      await trx
        .insertInto('account_setup')
        .values({ id: 1, completed_at: t })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return userId;
    });
    return (await this.listUsers()).find((u) => u.id === id)!;
  }

  /** `vesta admin reset-password`: sets a new password and signs every session of the user out. */
  async resetPassword(email: string, password: string): Promise<void> {
    requirePassword(password);
    const passwordHash = await hashPassword(password);
    const user = await this.findByEmail(email);
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', user.id).execute();
      await trx.deleteFrom('web_sessions').where('user_id', '=', user.id).execute();
    });
  }

  async findByEmail(raw: string): Promise<{ id: string; name: string }> {
    const email = normaliseEmail(raw);
    const user = await this.db
      .selectFrom('users')
      .select(['id', 'name'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (!user) throw notFound(`user with the email ${email}`);
    return user;
  }

  async findByName(name: string): Promise<{ id: string; name: string }> {
    const user = await this.db
      .selectFrom('users')
      .select(['id', 'name'])
      .where('name', '=', name)
      .executeTakeFirst();
    if (!user) throw notFound(`user ${name}`);
    return user;
  }

  private async startSession(userId: string, client: ClientInfo): Promise<SignedIn> {
    const token = randomBytes(32).toString('base64url');
    const t = this.now();
    const id = randomUUID();
    const expiresAt = t + this.options.sessionMaxMs;
    await this.db
      .insertInto('web_sessions')
      .values({
        id,
        token_hash: sha256(token),
        user_id: userId,
        user_agent: client.userAgent?.slice(0, 300) ?? null,
        ip: client.ip.slice(0, 64),
        created_at: t,
        last_seen_at: t,
        expires_at: expiresAt,
      })
      .execute();
    return {
      account: await this.account(userId),
      token,
      csrfToken: csrfTokenFor(token),
      sessionId: id,
      expiresAt: Math.min(expiresAt, t + this.options.sessionIdleMs),
    };
  }
}

function inviteView(r: {
  id: string;
  email: string;
  role: UserRole;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
}): InviteView {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    usedAt: iso(r.used_at),
    revokedAt: iso(r.revoked_at),
  };
}
