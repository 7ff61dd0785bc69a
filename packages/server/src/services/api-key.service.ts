/**
 * API keys: created and revoked by the operator on the host (`vesta admin`), checked on every
 * /api/v1 request. Only a SHA-256 hash and a short display prefix are stored; the comparison is
 * constant-time.
 *
 * Successful checks are remembered for a short time (`AUTH_CACHE_TTL_MS`) in a bounded map keyed
 * by the key's SHA-256, so a client polling with one key does not read the database on every
 * request. A key revoked through this service stops working here at once. Other processes on the
 * same database (the other API processes of a cluster, `vesta admin revoke-key` on the host) are
 * told through ClusterEvents (PostgreSQL NOTIFY) and forget it within milliseconds; should that
 * message be lost (the listening connection was down), the entry still expires within
 * `AUTH_CACHE_TTL_MS`, and a reconnect clears the whole cache. Failed checks are never cached,
 * and the whole key is never kept.
 *
 * Keys made in the dashboard have a name and may expire; an expired key, or a key of a disabled
 * user, answers 401 like a revoked one. `last_used_at` costs the hot path nothing: it is noted in
 * memory only when a check reads the database (a cache miss, at most once per `cacheTtlMs` per
 * key), and the notes are written in one batch every `LAST_USED_FLUSH_MS` (and at close). So the
 * dashboard's "last used" is right to within a minute or so.
 */
import { createHash, hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ApiKeyView, AuthenticatedUser } from '../domain/views/accounts.js';
import type { ClusterEvents } from '../ports/cluster-events.js';
import type { Repositories } from '../repositories/index.js';
import { forbidden, notFound } from '../errors.js';
import { ownRow } from './ownership.js';

const KEY_PREFIX = 'vsk_';
/** Characters of the key shown to operators and used to find its row: `vsk_` + 8. */
export const DISPLAY_PREFIX_LENGTH = 12;
const KEY_SHAPE = /^vsk_[A-Za-z0-9_-]{40}$/;
const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
/** Longest time a key revoked by another process keeps authenticating here. */
export const AUTH_CACHE_TTL_MS = 5000;
/** Most keys remembered at once (the oldest entry goes first). */
export const AUTH_CACHE_MAX_ENTRIES = 10_000;
/** How often the noted last-used times are written. */
export const LAST_USED_FLUSH_MS = 30_000;
/** Longest name of a dashboard key. */
export const KEY_NAME_MAX = 100;

export interface ApiKeyServiceOptions {
  /** How long a successful check is remembered (0 disables the cache). */
  cacheTtlMs?: number;
  cacheMaxEntries?: number;
  /** Tells the other processes of revocations and hears theirs (default: none, one process). */
  events?: ClusterEvents;
}

interface CachedKey {
  user: AuthenticatedUser;
  prefix: string;
  expiresAt: number;
}

export interface CreatedKey {
  /** The whole key: shown once, never stored. */
  key: string;
  prefix: string;
  userId: string;
  userName: string;
  /** The key's row id (for listing and revoking in the dashboard). */
  id: string;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/** SHA-256 of a key as hex (the one-shot `crypto.hash` where this Node has it: no Hash object). */
const sha256Hex: (s: string) => string =
  typeof hash === 'function'
    ? (s) => hash('sha256', s, 'hex')
    : (s) => createHash('sha256').update(s, 'utf8').digest('hex');

export class ApiKeyService {
  /** Key SHA-256 (hex) → the user it authenticated, until `expiresAt`. Insertion-ordered. */
  private readonly cache = new Map<string, CachedKey>();
  private readonly cacheTtlMs: number;
  private readonly cacheMaxEntries: number;
  /** Key id → when it last authenticated, not yet written. */
  private readonly lastUsed = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly events: ClusterEvents | undefined;

  constructor(
    private readonly repos: Repositories,
    private readonly now: () => number = Date.now,
    options: ApiKeyServiceOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? AUTH_CACHE_TTL_MS;
    this.cacheMaxEntries = options.cacheMaxEntries ?? AUTH_CACHE_MAX_ENTRIES;
    this.events = options.events;
    this.events?.subscribe('auth', (message) => {
      if (message.startsWith('key:')) this.forgetKey(message.slice(4));
      else if (message.startsWith('user:')) this.forgetUser(message.slice(5));
    });
    // Messages may have been missed while the connection was down: forget everything.
    this.events?.onResync(() => this.cache.clear());
  }

  /** Creates a key for `userName`, creating the user when it does not exist yet. */
  async createKey(
    userName: string,
    options: { name?: string; expiresAt?: number | null } = {},
  ): Promise<CreatedKey> {
    if (!USER_NAME.test(userName))
      throw new RangeError('user name must be 1-64 characters of letters, digits, ".", "_", "@" or "-"');
    return this.repos.transaction(async (tx) => {
      let user = await tx.users.byName(userName);
      if (!user) {
        user = { id: randomUUID(), name: userName, email: null };
        await tx.users.insert({
          id: user.id,
          name: user.name,
          created_at: this.now(),
          email: null,
          password_hash: null,
          role: 'user',
          disabled_at: null,
        });
      }
      for (;;) {
        const key = KEY_PREFIX + randomBytes(30).toString('base64url');
        const prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
        if (await tx.apiKeys.prefixTaken(prefix)) continue;
        const id = randomUUID();
        await tx.apiKeys.insert({
          id,
          user_id: user.id,
          prefix,
          hash: sha256Hex(key),
          created_at: this.now(),
          revoked_at: null,
          name: options.name ?? null,
          expires_at: options.expiresAt ?? null,
          last_used_at: null,
        });
        return { key, prefix, userId: user.id, userName: user.name, id };
      }
    });
  }

  /** A key for a dashboard user (by id), with a name and an optional expiry. */
  async createKeyFor(
    userId: string,
    options: { name: string; expiresAt: number | null },
  ): Promise<CreatedKey> {
    return this.createKey(await this.repos.users.nameOf(userId), options);
  }

  /** The user's keys that are not revoked (expired ones included, marked), newest first. */
  async list(userId: string): Promise<ApiKeyView[]> {
    await this.flushLastUsed();
    const t = this.now();
    const rows = await this.repos.apiKeys.activeOf(userId);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      createdAt: iso(r.created_at)!,
      lastUsedAt: iso(r.last_used_at),
      expiresAt: iso(r.expires_at),
      expired: r.expires_at !== null && Number(r.expires_at) <= t,
    }));
  }

  /**
   * Revokes the user's key by its row id; it stops working here at once. 404 for an unknown or
   * already revoked key, 403 for another user's.
   */
  async revokeOwn(userId: string, keyId: string): Promise<void> {
    const { prefix } = ownRow(await this.repos.apiKeys.activeOwnedBy(keyId, userId), {
      none: () => notFound('API key'),
      other: () => forbidden('this API key is not yours'),
    });
    await this.revokeKey(prefix);
  }

  /** Revokes every key of a user (disabling them). */
  async revokeAllOf(userId: string): Promise<void> {
    for (const prefix of await this.repos.apiKeys.activePrefixesOf(userId)) await this.revokeKey(prefix);
    this.forgetUser(userId);
    await this.tellOthers(`user:${userId}`);
  }

  /** Writes the noted last-used times in one transaction. */
  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed];
    this.lastUsed.clear();
    await this.repos.transaction(async (tx) => {
      for (const [id, t] of batch) await tx.apiKeys.setLastUsed(id, t);
    });
  }

  /** Stops the flush timer and writes what is pending. */
  async close(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushLastUsed();
  }

  /**
   * Revokes the key with this display prefix; false when there is no such active key. This
   * service forgets the key at once and tells the other processes (see the file comment).
   */
  async revokeKey(prefix: string): Promise<boolean> {
    const revoked = await this.repos.apiKeys.revoke(prefix, this.now());
    this.forgetKey(prefix);
    if (revoked) await this.tellOthers(`key:${prefix}`);
    return revoked;
  }

  private forgetKey(prefix: string): void {
    for (const [digest, entry] of this.cache) if (entry.prefix === prefix) this.cache.delete(digest);
  }

  private forgetUser(userId: string): void {
    for (const [digest, entry] of this.cache) if (entry.user.id === userId) this.cache.delete(digest);
  }

  /** The revocation is committed; a message that cannot be sent leaves the others to the cache's TTL. */
  private async tellOthers(message: string): Promise<void> {
    await this.events?.publish('auth', message).catch(() => undefined);
  }

  /**
   * The user a key authenticated within the last `cacheTtlMs`, without touching the database;
   * undefined when the key must be looked up (`authenticate`). Lets the auth hook answer
   * synchronously on the common path.
   */
  cached(presented: string): AuthenticatedUser | undefined {
    return this.cachedByDigest(sha256Hex(presented));
  }

  /** The user a presented key belongs to, or null for a malformed, unknown or revoked key. */
  async authenticate(presented: string | undefined): Promise<AuthenticatedUser | null> {
    if (presented === undefined || !KEY_SHAPE.test(presented)) return null;
    const digest = sha256Hex(presented);
    const hit = this.cachedByDigest(digest);
    if (hit !== undefined) return hit;
    const t = this.now();
    const prefix = presented.slice(0, DISPLAY_PREFIX_LENGTH);
    const row = await this.repos.apiKeys.byPrefix(prefix);
    const expected = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(32);
    const match = timingSafeEqual(Buffer.from(digest, 'hex'), expected);
    if (!row || !match || row.revoked_at !== null || row.disabled_at !== null) return null;
    const expiresAt = row.expires_at === null ? Infinity : Number(row.expires_at);
    if (expiresAt <= t) return null;
    const user = { id: row.id, name: row.name };
    this.noteUsed(row.keyId, t);
    if (this.cacheTtlMs > 0) {
      if (this.cache.size >= this.cacheMaxEntries) {
        const oldest = this.cache.keys().next();
        if (!oldest.done) this.cache.delete(oldest.value);
      }
      this.cache.set(digest, { user, prefix, expiresAt: Math.min(expiresAt, t + this.cacheTtlMs) });
    }
    return user;
  }

  private noteUsed(keyId: string, t: number): void {
    this.lastUsed.set(keyId, t);
    if (this.flushTimer === undefined) {
      this.flushTimer = setInterval(() => {
        this.flushLastUsed().catch(() => undefined);
      }, LAST_USED_FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  private cachedByDigest(digest: string): AuthenticatedUser | undefined {
    const cached = this.cache.get(digest);
    if (cached === undefined) return undefined;
    if (cached.expiresAt > this.now()) return cached.user;
    this.cache.delete(digest);
    return undefined;
  }
}
