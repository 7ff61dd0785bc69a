/**
 * API keys: a SHA-256 hash and a short display prefix per key (the whole key is never stored).
 * The prefix finds a key's row; the lookup that runs on every authenticated request is compiled
 * once. Part of the accounts aggregate with `users.repository.ts`.
 */
import type { Db } from '../db/connection.js';
import { ownedRead } from './owned.js';
import type { Owned } from './owned.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { ApiKeysTable } from '../db/schema.js';

/** A stored key. */
export type ApiKeyRecord = ApiKeysTable;

/** A key found by its prefix, with its user. */
export interface KeyWithUser {
  keyId: string;
  hash: string;
  revoked_at: number | null;
  expires_at: number | null;
  id: string;
  name: string;
  disabled_at: number | null;
}

export class ApiKeyRepository {
  /** Runs on every authenticated request (on a cache miss): compiled once (on first use, per executor). */
  private byPrefixQuery?: (...params: unknown[]) => Promise<KeyWithUser[]>;

  constructor(private readonly db: Db) {}

  async byPrefix(prefix: string): Promise<KeyWithUser | undefined> {
    this.byPrefixQuery ??= preparedQuery(
      this.db,
      this.db
        .selectFrom('api_keys')
        .innerJoin('users', 'users.id', 'api_keys.user_id')
        .select([
          'api_keys.id as keyId',
          'api_keys.hash',
          'api_keys.revoked_at',
          'api_keys.expires_at',
          'users.id',
          'users.name',
          'users.disabled_at',
        ])
        .where('api_keys.prefix', '=', '?'),
      1,
    );
    const [row] = await this.byPrefixQuery(prefix);
    return row;
  }

  async prefixTaken(prefix: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('api_keys').select('id').where('prefix', '=', prefix).executeTakeFirst()) !==
      undefined
    );
  }

  async insert(row: ApiKeyRecord): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  /** The user's keys that are not revoked, newest first. */
  async activeOf(
    userId: string,
  ): Promise<
    Array<Pick<ApiKeyRecord, 'id' | 'name' | 'prefix' | 'created_at' | 'last_used_at' | 'expires_at'>>
  > {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'expires_at'])
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .execute();
  }

  /** The key row `keyId` that is not revoked, as user `owner` may see it (`Owned`: its prefix). */
  async activeOwnedBy(keyId: string, owner: string): Promise<Owned<{ prefix: string }>> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(['prefix', 'user_id'])
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return ownedRead(row, (r) => r.user_id, owner);
  }

  /** The display prefixes of the user's keys that are not revoked. */
  async activePrefixesOf(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('prefix')
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
    return rows.map((r) => r.prefix);
  }

  /** Revokes the active key with this prefix; false when there is none. */
  async revoke(prefix: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('prefix', '=', prefix)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async setLastUsed(keyId: string, at: number): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
  }
}
