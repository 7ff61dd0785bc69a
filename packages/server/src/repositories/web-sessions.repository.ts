/**
 * Dashboard sign-in sessions: server-side rows keyed by the SHA-256 of the cookie's token, so they
 * can be listed and revoked. Part of the accounts aggregate with `users.repository.ts`.
 */
import type { Db } from '../db/connection.js';
import { ownedRead } from './owned.js';
import type { Owned } from './owned.js';
import type { UserRole, WebSessionsTable } from '../db/schema.js';

/** A stored sign-in session. */
export type WebSessionRecord = WebSessionsTable;

/** A session with the user it signs in. */
export interface WebSessionWithUser {
  webSessionId: string;
  last_seen_at: number;
  expires_at: number;
  id: string;
  name: string;
  email: string | null;
  role: UserRole;
  disabled_at: number | null;
}

export class WebSessionRepository {
  constructor(private readonly db: Db) {}

  async insert(row: WebSessionRecord): Promise<void> {
    await this.db.insertInto('web_sessions').values(row).execute();
  }

  async byTokenHash(tokenHash: string): Promise<WebSessionWithUser | undefined> {
    return this.db
      .selectFrom('web_sessions')
      .innerJoin('users', 'users.id', 'web_sessions.user_id')
      .select([
        'web_sessions.id as webSessionId',
        'web_sessions.last_seen_at',
        'web_sessions.expires_at',
        'users.id',
        'users.name',
        'users.email',
        'users.role',
        'users.disabled_at',
      ])
      .where('web_sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  /** Whether the sign-in session `id` is user `owner`'s (`Owned`; its row is the id alone). */
  async ownedBy(id: string, owner: string): Promise<Owned<{ id: string }>> {
    const row = await this.db
      .selectFrom('web_sessions')
      .select(['id', 'user_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    return ownedRead(row, (r) => r.user_id, owner);
  }

  async touch(id: string, at: number): Promise<void> {
    await this.db.updateTable('web_sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id', '=', id).execute();
  }

  /** Signs the user out everywhere. */
  async deleteOfUser(userId: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
  }

  /** Signs the user out everywhere but session `keepId`. */
  async deleteOthersOf(userId: string, keepId: string): Promise<void> {
    await this.db
      .deleteFrom('web_sessions')
      .where('user_id', '=', userId)
      .where('id', '!=', keepId)
      .execute();
  }

  /** The user's sessions not expired at `at` and seen since `seenSince`, newest first. */
  async liveOf(userId: string, at: number, seenSince: number): Promise<WebSessionRecord[]> {
    return this.db
      .selectFrom('web_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('expires_at', '>', at)
      .where('last_seen_at', '>', seenSince)
      .orderBy('created_at', 'desc')
      .execute();
  }
}
