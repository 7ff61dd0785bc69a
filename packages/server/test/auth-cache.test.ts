/**
 * The short-lived cache of authenticated keys: a revocation through the server's own service
 * takes effect at once; one made by another process on the same database (`vesta admin
 * revoke-key` on the host) takes effect within AUTH_CACHE_TTL_MS; failed checks are never
 * remembered; a key that shares a cached key's prefix is still checked in full.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import { dropTestDatabase, testDatabaseTarget } from './helpers/test-database.js';
import type { OpenedDatabase } from '../src/db/connection.js';
import { Repositories } from '../src/repositories/index.js';
import { AUTH_CACHE_TTL_MS, ApiKeyService } from '../src/services/api-key.service.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

describe('ApiKeyService cache', () => {
  let dir: string;
  let opened: OpenedDatabase;
  let clock = 1_000_000;
  const now = (): number => clock;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-auth-cache-'));
    opened = await openDatabase(await testDatabaseTarget(dir));
  });
  afterAll(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase(dir);
  });

  it('bounds a revocation made by another process by AUTH_CACHE_TTL_MS', async () => {
    expect(AUTH_CACHE_TTL_MS).toBeLessThanOrEqual(5000);
    const server = new ApiKeyService(new Repositories(opened.db), now);
    const operator = new ApiKeyService(new Repositories(opened.db), now); // what `vesta admin revoke-key` runs
    const created = await server.createKey('cache-user');
    expect(await server.authenticate(created.key)).toEqual({ id: created.userId, name: 'cache-user' });

    expect(await operator.revokeKey(created.prefix)).toBe(true);
    // Still remembered by the server's service until the entry expires …
    clock += AUTH_CACHE_TTL_MS - 1;
    expect(await server.authenticate(created.key)).not.toBeNull();
    // … and refused from then on.
    clock += 1;
    expect(await server.authenticate(created.key)).toBeNull();
    clock += AUTH_CACHE_TTL_MS;
    expect(await server.authenticate(created.key)).toBeNull();
  });

  it('forgets a key revoked through the same service at once', async () => {
    const service = new ApiKeyService(new Repositories(opened.db), now);
    const created = await service.createKey('cache-user-2');
    expect(await service.authenticate(created.key)).not.toBeNull();
    expect(await service.revokeKey(created.prefix)).toBe(true);
    expect(await service.authenticate(created.key)).toBeNull();
  });

  it('checks a key sharing a cached key’s prefix in full, and remembers no failure', async () => {
    const service = new ApiKeyService(new Repositories(opened.db), now);
    const created = await service.createKey('cache-user-3');
    expect(await service.authenticate(created.key)).not.toBeNull();
    const last = created.key.at(-1) === 'A' ? 'B' : 'A';
    const tampered = `${created.key.slice(0, -1)}${last}`;
    expect(await service.authenticate(tampered)).toBeNull();

    // An unknown key created later by another process works at once (nothing negative cached).
    const other = new ApiKeyService(new Repositories(opened.db), now);
    const unknownYet = 'vsk_' + 'x'.repeat(40);
    expect(await service.authenticate(unknownYet)).toBeNull();
    const late = await other.createKey('cache-user-4');
    expect(await service.authenticate(late.key)).toEqual({ id: late.userId, name: 'cache-user-4' });
  });

  it('keeps at most cacheMaxEntries keys and can be turned off', async () => {
    const small = new ApiKeyService(new Repositories(opened.db), now, { cacheMaxEntries: 2 });
    const keys = await Promise.all(['a', 'b', 'c'].map((n) => small.createKey(`cache-max-${n}`)));
    for (const k of keys) expect(await small.authenticate(k.key)).not.toBeNull();
    // The oldest entry was dropped: a revocation by another process shows at once for it.
    await new ApiKeyService(new Repositories(opened.db), now).revokeKey(keys[0]!.prefix);
    expect(await small.authenticate(keys[0]!.key)).toBeNull();

    const uncached = new ApiKeyService(new Repositories(opened.db), now, { cacheTtlMs: 0 });
    const k = await uncached.createKey('cache-off');
    expect(await uncached.authenticate(k.key)).not.toBeNull();
    await new ApiKeyService(new Repositories(opened.db), now).revokeKey(k.prefix);
    expect(await uncached.authenticate(k.key)).toBeNull();
  });
});

describe('revocation over HTTP', () => {
  let server: CoreTestServer;
  beforeAll(async () => {
    server = await startCoreServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a key in use stops working on the next request once the server revokes it', async () => {
    const created = await server.deps.services.apiKeys.createKey('http-revoke');
    const get = (): Promise<number> =>
      server.app
        .inject({ method: 'GET', url: '/api/v1/score', headers: { 'x-api-key': created.key } })
        .then((r) => r.statusCode);
    expect(await get()).toBe(200);
    expect(await get()).toBe(200);
    expect(await server.deps.services.apiKeys.revokeKey(created.prefix)).toBe(true);
    expect(await get()).toBe(401);
  });
});
