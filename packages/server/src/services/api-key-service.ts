/**
 * API keys: created and revoked by the operator on the host (`vesta admin`), checked on every
 * /api/v1 request. Only a SHA-256 hash and a short display prefix are stored; the comparison is
 * constant-time.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/connection.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { AuthenticatedUser } from '../http/request-context.js';

const KEY_PREFIX = 'vsk_';
/** Characters of the key shown to operators and used to find its row: `vsk_` + 8. */
export const DISPLAY_PREFIX_LENGTH = 12;
const KEY_SHAPE = /^vsk_[A-Za-z0-9_-]{40}$/;
const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

export interface CreatedKey {
  /** The whole key: shown once, never stored. */
  key: string;
  prefix: string;
  userId: string;
  userName: string;
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

export class ApiKeyService {
  private readonly keyByPrefix;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    // Runs on every authenticated request: compiled once.
    this.keyByPrefix = preparedQuery(
      db,
      db
        .selectFrom('api_keys')
        .innerJoin('users', 'users.id', 'api_keys.user_id')
        .select(['api_keys.hash', 'api_keys.revoked_at', 'users.id', 'users.name'])
        .where('api_keys.prefix', '=', '?'),
      1,
    );
  }

  /** Creates a key for `userName`, creating the user when it does not exist yet. */
  async createKey(userName: string): Promise<CreatedKey> {
    if (!USER_NAME.test(userName))
      throw new RangeError('user name must be 1-64 characters of letters, digits, ".", "_", "@" or "-"');
    return this.db.transaction().execute(async (trx) => {
      let user = await trx
        .selectFrom('users')
        .select(['id', 'name'])
        .where('name', '=', userName)
        .executeTakeFirst();
      if (!user) {
        user = { id: randomUUID(), name: userName };
        await trx
          .insertInto('users')
          .values({ ...user, created_at: this.now() })
          .execute();
      }
      for (;;) {
        const key = KEY_PREFIX + randomBytes(30).toString('base64url');
        const prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
        const taken = await trx
          .selectFrom('api_keys')
          .select('id')
          .where('prefix', '=', prefix)
          .executeTakeFirst();
        if (taken) continue;
        await trx
          .insertInto('api_keys')
          .values({
            id: randomUUID(),
            user_id: user.id,
            prefix,
            hash: sha256(key).toString('hex'),
            created_at: this.now(),
            revoked_at: null,
          })
          .execute();
        return { key, prefix, userId: user.id, userName: user.name };
      }
    });
  }

  /** Revokes the key with this display prefix; false when there is no such active key. */
  async revokeKey(prefix: string): Promise<boolean> {
    const res = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: this.now() })
      .where('prefix', '=', prefix)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** The user a presented key belongs to, or null for a malformed, unknown or revoked key. */
  async authenticate(presented: string | undefined): Promise<AuthenticatedUser | null> {
    if (presented === undefined || !KEY_SHAPE.test(presented)) return null;
    const [row] = await this.keyByPrefix(presented.slice(0, DISPLAY_PREFIX_LENGTH));
    const expected = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(32);
    const match = timingSafeEqual(sha256(presented), expected);
    if (!row || !match || row.revoked_at !== null) return null;
    return { id: row.id, name: row.name };
  }
}
