/**
 * Users and what makes one: dashboard accounts (email, password hash, role, disabled), the
 * first-run setup claim, and invites. Only hashes of passwords and invite tokens are stored.
 * Part of the accounts aggregate with `web-sessions.repository.ts` and `api-keys.repository.ts`.
 */
import type { Db } from '../db/connection.js';
import type { InvitesTable, UserRole, UsersTable } from '../db/schema.js';

/** A stored user. */
export type UserRecord = UsersTable;
/** A stored invite. */
export type InviteRecord = InvitesTable;

export class UserRepository {
  constructor(private readonly db: Db) {}

  async insert(row: UserRecord): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  async exists(id: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    );
  }

  async nameTaken(name: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('users').select('id').where('name', '=', name).executeTakeFirst()) !==
      undefined
    );
  }

  async emailTaken(email: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) !==
      undefined
    );
  }

  async byName(name: string): Promise<Pick<UserRecord, 'id' | 'name' | 'email'> | undefined> {
    return this.db
      .selectFrom('users')
      .select(['id', 'name', 'email'])
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async byEmail(email: string): Promise<Pick<UserRecord, 'id' | 'name'> | undefined> {
    return this.db.selectFrom('users').select(['id', 'name']).where('email', '=', email).executeTakeFirst();
  }

  /** What signing in checks. */
  async credentialsByEmail(
    email: string,
  ): Promise<Pick<UserRecord, 'id' | 'password_hash' | 'disabled_at'> | undefined> {
    return this.db
      .selectFrom('users')
      .select(['id', 'password_hash', 'disabled_at'])
      .where('email', '=', email)
      .executeTakeFirst();
  }

  /** The account of an existing user (throws when there is none). */
  async account(id: string): Promise<Pick<UserRecord, 'id' | 'name' | 'email' | 'role'>> {
    return this.db
      .selectFrom('users')
      .select(['id', 'name', 'email', 'role'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  async nameOf(id: string): Promise<string> {
    const user = await this.db
      .selectFrom('users')
      .select('name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return user.name;
  }

  /** The password hash of an existing user (throws when there is none). */
  async passwordHashOf(id: string): Promise<string | null> {
    const user = await this.db
      .selectFrom('users')
      .select(['password_hash'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return user.password_hash;
  }

  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
  }

  /** Gives a user (one made for an API key) an email, a password and a role. */
  async setCredentials(
    id: string,
    credentials: { email: string; password_hash: string; role: UserRole },
  ): Promise<void> {
    await this.db.updateTable('users').set(credentials).where('id', '=', id).execute();
  }

  /** Every user, oldest first. */
  async list(): Promise<
    Array<Pick<UserRecord, 'id' | 'name' | 'email' | 'role' | 'created_at' | 'disabled_at'>>
  > {
    return this.db
      .selectFrom('users')
      .select(['id', 'name', 'email', 'role', 'created_at', 'disabled_at'])
      .orderBy('created_at', 'asc')
      .execute();
  }

  /** Disables the user (if not disabled already). */
  async disable(id: string, at: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ disabled_at: at })
      .where('id', '=', id)
      .where('disabled_at', 'is', null)
      .execute();
  }

  // ---- first-run setup -----------------------------------------------------------------------

  async setupDone(): Promise<boolean> {
    return (await this.db.selectFrom('account_setup').select('id').executeTakeFirst()) !== undefined;
  }

  /** Claims first-run setup: true for the one caller that wins (the row's primary key). */
  async claimSetup(at: number): Promise<boolean> {
    const claimed = await this.db
      .insertInto('account_setup')
      .values({ id: 1, completed_at: at })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  // ---- invites -------------------------------------------------------------------------------

  async insertInvite(row: InviteRecord): Promise<void> {
    await this.db.insertInto('invites').values(row).execute();
  }

  /** Every invite, newest first. */
  async invites(): Promise<InviteRecord[]> {
    return this.db.selectFrom('invites').selectAll().orderBy('created_at', 'desc').execute();
  }

  async inviteByTokenHash(tokenHash: string): Promise<InviteRecord | undefined> {
    return this.db.selectFrom('invites').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Revokes an invite that is neither used nor revoked; false when there is no such invite. */
  async revokeInvite(id: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable('invites')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Marks an unused invite used; false when another acceptance won. */
  async useInvite(id: string, at: number): Promise<boolean> {
    const claimed = await this.db
      .updateTable('invites')
      .set({ used_at: at })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }
}
