/**
 * Dashboard accounts: first-run setup, sign-in and sign-out, server-side web sessions, password
 * changes, and accepting an invite (user administration and invites are `user-admin.service.ts`).
 * Passwords are scrypt hashes (services/passwords.ts); a session's cookie carries a random token of
 * which only the SHA-256 is stored; an invite's token likewise. The CSRF token of a session is an
 * HMAC of its cookie token, so it needs no storage and changes with every session.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Account, WebSessionView } from '../domain/views/accounts.js';
import { AppError, conflict, forbidden, notFound } from '../errors.js';
import type { Repositories } from '../repositories/index.js';
import { freeUserName, iso, normaliseEmail, requirePassword, sha256 } from './account-rules.js';
import { LoginThrottle } from './login-throttle.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { ownRow } from './ownership.js';

export const WEB_SESSION_COOKIE = 'vesta_session';
/** last_seen_at is written at most this often per session (not on every dashboard request). */
const TOUCH_EVERY_MS = 60_000;

export interface AccountOptions {
  /** A session not used for this long is signed out. */
  webSessionIdleMs: number;
  /** A session ends this long after sign-in, used or not. */
  webSessionMaxMs: number;
}

export interface SignedIn {
  account: Account;
  /** The cookie's value: shown to the browser once, never stored. */
  token: string;
  csrfToken: string;
  webSessionId: string;
  expiresAt: number;
}

export interface WebSessionAccount extends Account {
  webSessionId: string;
  webSessionExpiresAt: number;
}

export interface ClientInfo {
  ip: string;
  userAgent: string | undefined;
}

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

export class AccountService {
  readonly throttle: LoginThrottle;

  constructor(
    private readonly repos: Repositories,
    private readonly options: AccountOptions,
    private readonly now: () => number = Date.now,
    throttle?: LoginThrottle,
  ) {
    this.throttle = throttle ?? new LoginThrottle(repos.rateLimits(now));
  }

  /** True while no account has a password (the setup page is open). */
  async setupRequired(): Promise<boolean> {
    return !(await this.repos.users.setupDone());
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
    const userId = await this.repos.transaction(async (tx) => {
      if (!(await tx.users.claimSetup(t)))
        throw conflict('setup is already done: sign in, or ask an admin for an invite');
      const id = randomUUID();
      await tx.users.insert({
        id,
        name: await freeUserName(tx.users, email, input.name),
        created_at: t,
        email,
        password_hash: passwordHash,
        role: 'admin',
        disabled_at: null,
      });
      return id;
    });
    return this.startWebSession(userId, client);
  }

  /** Signs in; wrong email, wrong password and a disabled user all answer the same 401. */
  async signIn(input: { email: string; password: string }, client: ClientInfo): Promise<SignedIn> {
    const email = input.email.trim().toLowerCase();
    const wait = await this.throttle.retryAfterMs(email, client.ip);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new AppError(
        'rate_limited',
        `too many failed sign-ins: try again in ${waitInWords(seconds)} (after ${new Date(this.now() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')})`,
        { retryAfterSeconds: seconds },
      );
    }
    const user = await this.repos.users.credentialsByEmail(email);
    const ok = await verifyPassword(input.password, user?.password_hash ?? null);
    if (!user || !ok || user.disabled_at !== null) {
      await this.throttle.failed(email, client.ip);
      throw new AppError('unauthorized', 'wrong email or password');
    }
    await this.throttle.succeeded(email);
    return this.startWebSession(user.id, client);
  }

  /** The signed-in account behind a cookie token, or null (unknown, expired, idle, disabled). */
  async authenticate(token: string): Promise<WebSessionAccount | null> {
    if (token.length < 20 || token.length > 200) return null;
    const row = await this.repos.webSessions.byTokenHash(sha256(token));
    if (!row) return null;
    const t = this.now();
    const lastSeen = Number(row.last_seen_at);
    const expiresAt = Number(row.expires_at);
    if (
      row.disabled_at !== null ||
      expiresAt <= t ||
      t - lastSeen >= this.options.webSessionIdleMs ||
      !row.email
    ) {
      await this.repos.webSessions.delete(row.webSessionId);
      return null;
    }
    if (t - lastSeen >= TOUCH_EVERY_MS) await this.repos.webSessions.touch(row.webSessionId, t);
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      role: row.role,
      webSessionId: row.webSessionId,
      webSessionExpiresAt: Math.min(expiresAt, t + this.options.webSessionIdleMs),
    };
  }

  async signOut(webSessionId: string): Promise<void> {
    await this.repos.webSessions.delete(webSessionId);
  }

  async account(userId: string): Promise<Account> {
    const row = await this.repos.users.account(userId);
    return { id: row.id, name: row.name, email: row.email ?? '', role: row.role };
  }

  async listWebSessions(userId: string, currentWebSessionId: string): Promise<WebSessionView[]> {
    const t = this.now();
    const rows = await this.repos.webSessions.liveOf(userId, t, t - this.options.webSessionIdleMs);
    return rows.map((r) => ({
      id: r.id,
      createdAt: iso(r.created_at)!,
      lastSeenAt: iso(r.last_seen_at)!,
      expiresAt: iso(Math.min(Number(r.expires_at), Number(r.last_seen_at) + this.options.webSessionIdleMs))!,
      userAgent: r.user_agent,
      ip: r.ip,
      current: r.id === currentWebSessionId,
    }));
  }

  async revokeWebSession(userId: string, webSessionId: string): Promise<void> {
    ownRow(await this.repos.webSessions.ownedBy(webSessionId, userId), {
      none: () => notFound('session'),
      other: () => forbidden('this session is not yours'),
    });
    await this.repos.webSessions.delete(webSessionId);
  }

  /** Changes the caller's password; every other session of theirs is signed out. */
  async changePassword(
    userId: string,
    currentWebSessionId: string,
    input: { currentPassword: string; newPassword: string },
  ): Promise<void> {
    requirePassword(input.newPassword);
    const currentHash = await this.repos.users.passwordHashOf(userId);
    if (!(await verifyPassword(input.currentPassword, currentHash)))
      throw forbidden('the current password is wrong');
    const passwordHash = await hashPassword(input.newPassword);
    await this.repos.transaction(async (tx) => {
      await tx.users.setPasswordHash(userId, passwordHash);
      await tx.webSessions.deleteOthersOf(userId, currentWebSessionId);
    });
  }

  /** Accepts an invite: creates the account and signs it in. The token works once, before it expires. */
  async acceptInvite(
    input: { token: string; password: string; name?: string },
    client: ClientInfo,
  ): Promise<SignedIn> {
    requirePassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const t = this.now();
    const userId = await this.repos.transaction(async (tx) => {
      const invite = await tx.users.inviteByTokenHash(sha256(input.token));
      if (!invite || invite.revoked_at !== null)
        throw new AppError('unauthorized', 'this invite link is not valid');
      if (invite.used_at !== null) throw conflict('this invite link has already been used');
      if (Number(invite.expires_at) <= t) throw conflict('this invite link has expired: ask for a new one');
      if (!(await tx.users.useInvite(invite.id, t))) throw conflict('this invite link has already been used');
      if (await tx.users.emailTaken(invite.email))
        throw conflict(`an account with the email ${invite.email} already exists`);
      const id = randomUUID();
      await tx.users.insert({
        id,
        name: await freeUserName(tx.users, invite.email, input.name),
        created_at: t,
        email: invite.email,
        password_hash: passwordHash,
        role: invite.role,
        disabled_at: null,
      });
      // A judging campaign that added this email as a judge now has its account (issue #23).
      await tx.judging.bindInvitedJudges(invite.email, id);
      return id;
    });
    return this.startWebSession(userId, client);
  }

  private async startWebSession(userId: string, client: ClientInfo): Promise<SignedIn> {
    const token = randomBytes(32).toString('base64url');
    const t = this.now();
    const id = randomUUID();
    const expiresAt = t + this.options.webSessionMaxMs;
    await this.repos.webSessions.insert({
      id,
      token_hash: sha256(token),
      user_id: userId,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
      ip: client.ip.slice(0, 64),
      created_at: t,
      last_seen_at: t,
      expires_at: expiresAt,
    });
    return {
      account: await this.account(userId),
      token,
      csrfToken: csrfTokenFor(token),
      webSessionId: id,
      expiresAt: Math.min(expiresAt, t + this.options.webSessionIdleMs),
    };
  }
}

/** `30 seconds`, `1 minute`, `2 minutes 30 seconds`. */
export function waitInWords(seconds: number): string {
  const unit = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return unit(seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? unit(minutes, 'minute') : `${unit(minutes, 'minute')} ${unit(rest, 'second')}`;
}
