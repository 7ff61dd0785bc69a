/**
 * User administration: the admin's list of users, disabling a user (every session and API key of
 * theirs revoked at once), invites, and the operator's commands on the host (`vesta admin
 * create-user`, `reset-password`, `disable-user`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { InviteView, UserRole, UserView } from '../domain/views/accounts.js';
import { conflict, notFound } from '../errors.js';
import type { InviteRecord, Repositories } from '../repositories/index.js';
import { freeUserName, iso, normaliseEmail, requirePassword, sha256 } from './account-rules.js';
import type { ApiKeyService } from './api-key.service.js';
import { hashPassword } from './passwords.js';

export interface UserAdminOptions {
  /** An invite link works for this long. */
  inviteTtlMs: number;
}

export class UserAdminService {
  constructor(
    private readonly repos: Repositories,
    private readonly apiKeys: ApiKeyService,
    private readonly options: UserAdminOptions,
    private readonly now: () => number = Date.now,
  ) {}

  async listUsers(): Promise<UserView[]> {
    const rows = await this.repos.users.list();
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
    if (!(await this.repos.users.exists(userId))) throw notFound('user');
    await this.disable(userId);
    const view = (await this.listUsers()).find((u) => u.id === userId);
    return view!;
  }

  /** Disables by id (also used by `vesta admin disable-user`). */
  async disable(userId: string): Promise<void> {
    const t = this.now();
    await this.repos.transaction(async (tx) => {
      await tx.users.disable(userId, t);
      await tx.webSessions.deleteOfUser(userId);
    });
    await this.apiKeys.revokeAllOf(userId);
  }

  async createInvite(
    adminId: string,
    input: { email: string; role?: UserRole },
  ): Promise<{ invite: InviteView; token: string }> {
    const email = normaliseEmail(input.email);
    if (await this.repos.users.emailTaken(email))
      throw conflict(`an account with the email ${email} already exists`);
    const token = randomBytes(32).toString('base64url');
    const t = this.now();
    const row: InviteRecord = {
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
    await this.repos.users.insertInvite(row);
    return { invite: inviteView(row), token };
  }

  async listInvites(): Promise<InviteView[]> {
    return (await this.repos.users.invites()).map(inviteView);
  }

  async revokeInvite(inviteId: string): Promise<void> {
    if (!(await this.repos.users.revokeInvite(inviteId, this.now()))) throw notFound('open invite');
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
    const id = await this.repos.transaction(async (tx) => {
      if (await tx.users.emailTaken(email))
        throw conflict(`an account with the email ${email} already exists`);
      const existing = input.name === undefined ? undefined : await tx.users.byName(input.name);
      let userId: string;
      if (existing) {
        if (existing.email !== null) throw conflict(`the user ${input.name} already has an email`);
        await tx.users.setCredentials(existing.id, { email, password_hash: passwordHash, role: input.role });
        userId = existing.id;
      } else {
        userId = randomUUID();
        await tx.users.insert({
          id: userId,
          name: await freeUserName(tx.users, email, input.name),
          created_at: t,
          email,
          password_hash: passwordHash,
          role: input.role,
          disabled_at: null,
        });
      }
      // A judging campaign that added this email as a judge now has its account (issue #23).
      await tx.judging.bindInvitedJudges(email, userId);
      // The first admin made this way closes first-run setup (a later one finds it closed).
      await tx.users.claimSetup(t);
      return userId;
    });
    return (await this.listUsers()).find((u) => u.id === id)!;
  }

  /** `vesta admin reset-password`: sets a new password and signs every session of the user out. */
  async resetPassword(email: string, password: string): Promise<void> {
    requirePassword(password);
    const passwordHash = await hashPassword(password);
    const user = await this.findByEmail(email);
    await this.repos.transaction(async (tx) => {
      await tx.users.setPasswordHash(user.id, passwordHash);
      await tx.webSessions.deleteOfUser(user.id);
    });
  }

  async findByEmail(raw: string): Promise<{ id: string; name: string }> {
    const email = normaliseEmail(raw);
    const user = await this.repos.users.byEmail(email);
    if (!user) throw notFound(`user with the email ${email}`);
    return user;
  }

  async findByName(name: string): Promise<{ id: string; name: string }> {
    const user = await this.repos.users.byName(name);
    if (!user) throw notFound(`user ${name}`);
    return { id: user.id, name: user.name };
  }
}

function inviteView(r: InviteRecord): InviteView {
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
