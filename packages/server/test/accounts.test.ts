/**
 * Dashboard accounts against a real server (role `all`, fresh data directory): first-run setup
 * (once, race-safe), sign-in with one generic error, brute-force lockout, the session cookie's
 * attributes, CSRF and cross-origin refusal, API keys managed only with a session (never a key),
 * expiry, last-used, invites (single-use, expiring), disabling, password change and sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { waitInWords } from '../src/services/account.service.js';
import { LoginThrottle } from '../src/services/login-throttle.js';
import { RateLimitStore } from '../src/repositories/rate-limits.repository.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
const ADMIN = { email: 'Admin@Example.com', password: 'correct horse battery' };

interface Browser {
  cookie: string;
  csrf: string;
}

function sessionCookie(res: LightMyRequestResponse): string {
  const c = res.cookies.find((x) => x.name === 'vesta_session');
  expect(c, `no session cookie in ${JSON.stringify(res.headers['set-cookie'])}`).toBeDefined();
  return c!.value;
}

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  options: { as?: Browser; csrf?: string | null; payload?: unknown; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.as) {
    const csrf = options.csrf === undefined ? options.as.csrf : options.csrf;
    if (csrf !== null) headers['x-csrf-token'] = csrf;
  }
  return server.app.inject({
    method,
    url,
    headers,
    // inject's own cookie option (light-my-request serialises it with the `cookie` package that
    // the root package.json's override pins to a Node 20 release).
    ...(options.as ? { cookies: { vesta_session: options.as.cookie } } : {}),
    ...(options.payload === undefined ? {} : { payload: options.payload as Record<string, unknown> }),
  });
}

async function signIn(email: string, password: string, ip = '10.0.0.1'): Promise<Browser> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/auth/sign-in',
    payload: { email, password },
    remoteAddress: ip,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: sessionCookie(res), csrf: res.json().csrfToken };
}

let admin: Browser;

beforeAll(async () => {
  server = await startCoreServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('first-run setup', () => {
  it('is open until the first admin exists, then 409 — and two racing visitors get one admin', async () => {
    expect((await call('GET', '/api/v1/auth/setup')).json()).toEqual({ setupRequired: true });
    const short = await call('POST', '/api/v1/auth/setup', {
      payload: { email: 'a@b.c', password: 'short' },
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().code).toBe('validation_failed');
    const crossSite = await call('POST', '/api/v1/auth/setup', {
      payload: ADMIN,
      headers: { origin: 'https://evil.example' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().code).toBe('forbidden');

    const [a, b] = await Promise.all([
      call('POST', '/api/v1/auth/setup', { payload: ADMIN }),
      call('POST', '/api/v1/auth/setup', {
        payload: { email: 'other@example.com', password: 'another long one' },
      }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
    const winner = a.statusCode === 201 ? a : b;
    expect(winner.json().user.role).toBe('admin');
    const users = await server.deps.db
      .selectFrom('users')
      .select('email')
      .where('email', 'is not', null)
      .execute();
    expect(users).toHaveLength(1);
    expect((await call('GET', '/api/v1/auth/setup')).json()).toEqual({ setupRequired: false });
    const again = await call('POST', '/api/v1/auth/setup', {
      payload: { email: 'x@example.com', password: 'long enough pw' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('conflict');
    // Make sure the admin is the one these tests know.
    if (winner !== a) ADMIN.email = 'other@example.com';
    if (winner !== a) ADMIN.password = 'another long one';
  });

  it('sets an HttpOnly, SameSite=Lax cookie on path / (not Secure over http)', async () => {
    const res = await call('POST', '/api/v1/auth/sign-in', { payload: ADMIN });
    expect(res.statusCode).toBe(200);
    const raw = String(res.headers['set-cookie']);
    expect(raw).toMatch(/vesta_session=[A-Za-z0-9_-]{30,}/);
    expect(raw).toMatch(/HttpOnly/i);
    expect(raw).toMatch(/SameSite=Lax/i);
    expect(raw).toMatch(/Path=\//);
    expect(raw).not.toMatch(/Secure/i);
    expect(res.headers['cache-control']).toBe('no-store');
    admin = { cookie: sessionCookie(res), csrf: res.json().csrfToken };
    const me = await call('GET', '/api/v1/auth/session', { as: admin });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(ADMIN.email.toLowerCase());
    expect(me.json().csrfToken).toBe(admin.csrf);
  });

  it('marks the cookie Secure when VESTA_PUBLIC_URL is https', async () => {
    const https = await startCoreServer({ env: { VESTA_PUBLIC_URL: 'https://vesta.example.com' } });
    try {
      const res = await https.app.inject({
        method: 'POST',
        url: '/api/v1/auth/setup',
        payload: { email: 'a@example.com', password: 'long enough password' },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(String(res.headers['set-cookie'])).toMatch(/;\s*Secure/i);
    } finally {
      await https.stop();
    }
  });
});

describe('sign-in', () => {
  it('answers the same 401 for a wrong password, an unknown email and a disabled user', async () => {
    const wrong = await call('POST', '/api/v1/auth/sign-in', {
      payload: { email: ADMIN.email, password: 'not the password' },
    });
    const unknown = await call('POST', '/api/v1/auth/sign-in', {
      payload: { email: 'nobody@example.com', password: 'whatever password' },
    });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'unauthorized', detail: 'wrong email or password' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('locks an account out after repeated failures (429 with Retry-After, even for the right password)', async () => {
    const { account } = await server.deps.services.users
      .createInvite((await call('GET', '/api/v1/auth/session', { as: admin })).json().user.id, {
        email: 'target@example.com',
      })
      .then(async ({ token }) => {
        const res = await call('POST', '/api/v1/auth/accept-invite', {
          payload: { token, password: 'target password 1' },
        });
        expect(res.statusCode, res.body).toBe(201);
        return { account: res.json().user };
      });
    expect(account.email).toBe('target@example.com');
    const attempt = (password: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign-in',
        payload: { email: 'target@example.com', password },
        remoteAddress: '10.9.9.9',
      });
    for (let i = 0; i < 6; i++) expect((await attempt('wrong password!')).statusCode).toBe(401);
    const locked = await attempt('target password 1');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('rate_limited');
    const wait = Number(locked.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(30);
    // The wait in words, and when it ends.
    const detail = locked.json().detail as string;
    const match = /^too many failed sign-ins: try again in (\d+) seconds? \(after (\S+)\)$/.exec(detail);
    expect(match, detail).not.toBeNull();
    expect(Number(match![1])).toBe(wait);
    expect(Math.abs(Date.parse(match![2]!) - (Date.now() + wait * 1000))).toBeLessThan(2000);
  });

  it('says a longer wait in minutes', () => {
    expect([1, 30, 60, 120, 150, 900].map(waitInWords)).toEqual([
      '1 second',
      '30 seconds',
      '1 minute',
      '2 minutes',
      '2 minutes 30 seconds',
      '15 minutes',
    ]);
  });

  it('backs off per account and per IP, doubling, and forgets an account after a success', async () => {
    let t = 0;
    const throttle = new LoginThrottle(new RateLimitStore(server.deps.db, () => t), {
      account: { free: 2, baseLockMs: 1000, maxLockMs: 4000 },
      ip: { free: 4, baseLockMs: 1000, maxLockMs: 60_000 },
    });
    await throttle.failed('a', 'ip1');
    await throttle.failed('a', 'ip1');
    expect(await throttle.retryAfterMs('a', 'ip2')).toBe(0);
    await throttle.failed('a', 'ip1');
    expect(await throttle.retryAfterMs('a', 'ip2')).toBe(1000);
    t = 1000;
    await throttle.failed('a', 'ip1');
    expect(await throttle.retryAfterMs('a', 'ip2')).toBe(2000);
    t = 3000;
    await throttle.failed('a', 'ip1');
    expect(await throttle.retryAfterMs('a', 'ip2')).toBe(4000);
    t = 7000;
    await throttle.failed('a', 'ip1');
    expect(await throttle.retryAfterMs('a', 'ip2')).toBe(4000); // capped
    // The IP is now past its free failures: any account from it waits.
    expect(await throttle.retryAfterMs('b', 'ip1')).toBeGreaterThan(0);
    expect(await throttle.retryAfterMs('b', 'ip3')).toBe(0);
    t = 100_000;
    await throttle.succeeded('a');
    expect(await throttle.retryAfterMs('a', 'ip2')).toBe(0);
  });
});

describe('CSRF and origin checks on cookie-authenticated requests', () => {
  it("refuses a state change without the CSRF token, with another session's token, or from another origin", async () => {
    const other = await signIn(ADMIN.email, ADMIN.password);
    const body = { name: 'csrf-test' };
    const missing = await call('POST', '/api/v1/api-keys', { as: admin, csrf: null, payload: body });
    const foreign = await call('POST', '/api/v1/api-keys', { as: admin, csrf: other.csrf, payload: body });
    const crossOrigin = await call('POST', '/api/v1/api-keys', {
      as: admin,
      payload: body,
      headers: { origin: 'https://evil.example' },
    });
    const crossSite = await call('POST', '/api/v1/api-keys', {
      as: admin,
      payload: body,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    for (const res of [missing, foreign, crossOrigin, crossSite]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    // Nothing was made.
    expect((await call('GET', '/api/v1/api-keys', { as: admin })).json().items).toHaveLength(0);
    // The same request from the dashboard's origin works.
    const ok = await call('POST', '/api/v1/api-keys', {
      as: admin,
      payload: body,
      headers: { origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin' },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    await call('DELETE', `/api/v1/api-keys/${ok.json().apiKey.id}`, { as: admin });
  });

  it('never accepts the cookie cross-origin, even on reads', async () => {
    const res = await call('GET', '/api/v1/score', {
      as: admin,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(403);
    const same = await call('GET', '/api/v1/score', { as: admin });
    expect(same.statusCode).toBe(200);
  });

  it('lets the dashboard use the data routes with the cookie, CSRF token required on changes', async () => {
    expect((await call('POST', '/api/v1/score/reset', { as: admin, csrf: null })).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/score/reset', { as: admin })).statusCode).toBe(200);
  });
});

describe('API keys', () => {
  it('are created (shown once), listed, used, and revoked with a session; a key then gets 401', async () => {
    const created = await call('POST', '/api/v1/api-keys', { as: admin, payload: { name: 'laptop' } });
    expect(created.statusCode, created.body).toBe(201);
    const { key, apiKey } = created.json();
    expect(key).toMatch(/^vsk_/);
    expect(apiKey).toMatchObject({
      name: 'laptop',
      prefix: key.slice(0, 12),
      lastUsedAt: null,
      expiresAt: null,
    });
    const list = (await call('GET', '/api/v1/api-keys', { as: admin })).json().items;
    expect(list.map((k: { id: string }) => k.id)).toContain(apiKey.id);
    expect(JSON.stringify(list)).not.toContain(key);

    const used = await call('GET', '/api/v1/score', { headers: { 'x-api-key': key } });
    expect(used.statusCode).toBe(200);
    const listed = (await call('GET', '/api/v1/api-keys', { as: admin })).json().items;
    expect(listed.find((k: { id: string }) => k.id === apiKey.id).lastUsedAt).not.toBeNull();

    const revoked = await call('DELETE', `/api/v1/api-keys/${apiKey.id}`, { as: admin });
    expect(revoked.statusCode).toBe(204);
    const after = await call('GET', '/api/v1/score', { headers: { 'x-api-key': key } });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('unauthorized');
    expect((await call('DELETE', `/api/v1/api-keys/${apiKey.id}`, { as: admin })).statusCode).toBe(404);
  });

  it('refuse an X-API-Key on every key-management and account route (401), even a valid key', async () => {
    const created = await call('POST', '/api/v1/api-keys', { as: admin, payload: { name: 'leaked' } });
    const key: string = created.json().key;
    const sessionRoutes = server.app.vestaRoutes.filter(
      (r) => r.config.auth === 'web-session' && r.method !== 'HEAD',
    );
    expect(sessionRoutes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'GET /api/v1/api-keys',
        'POST /api/v1/api-keys',
        'DELETE /api/v1/api-keys/:id',
      ]),
    );
    for (const route of sessionRoutes) {
      const res = await call(route.method as 'GET', route.url.replace(':id', created.json().apiKey.id), {
        headers: { 'x-api-key': key },
        ...(route.method === 'POST' && route.url.endsWith('api-keys') ? { payload: { name: 'minted' } } : {}),
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
    // The key still works, and nothing was minted or revoked.
    expect((await call('GET', '/api/v1/score', { headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const names = (await call('GET', '/api/v1/api-keys', { as: admin }))
      .json()
      .items.map((k: { name: string }) => k.name);
    expect(names).not.toContain('minted');
  });

  it('answer 401 once expired', async () => {
    const me = (await call('GET', '/api/v1/auth/session', { as: admin })).json().user;
    const soon = await server.deps.services.apiKeys.createKeyFor(me.id, {
      name: 'short-lived',
      expiresAt: Date.now() + 300,
    });
    expect((await call('GET', '/api/v1/score', { headers: { 'x-api-key': soon.key } })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    const res = await call('GET', '/api/v1/score', { headers: { 'x-api-key': soon.key } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
    const listed = (await call('GET', '/api/v1/api-keys', { as: admin })).json().items;
    expect(listed.find((k: { id: string }) => k.id === soon.id).expired).toBe(true);
    const withExpiry = await call('POST', '/api/v1/api-keys', {
      as: admin,
      payload: { name: 'month', expiresInDays: 30 },
    });
    expect(Date.parse(withExpiry.json().apiKey.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  });

  it("refuse another user's key (403) and reject bad input (400)", async () => {
    const bob = await server.key('keys-bob');
    const bobRow = await server.deps.db
      .selectFrom('api_keys')
      .select('id')
      .where('prefix', '=', bob.slice(0, 12))
      .executeTakeFirstOrThrow();
    const res = await call('DELETE', `/api/v1/api-keys/${bobRow.id}`, { as: admin });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    const noName = await call('POST', '/api/v1/api-keys', { as: admin, payload: { name: '' } });
    expect(noName.statusCode).toBe(400);
    const extra = await call('POST', '/api/v1/api-keys', {
      as: admin,
      payload: { name: 'x', scopes: ['all'] },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().code).toBe('invalid_field');
  });
});

describe('invites, users and disabling', () => {
  let userBrowser: Browser;
  let userKey: string;

  it("a single-use invite makes an account that is not an admin and cannot see the admin's work", async () => {
    const created = await call('POST', '/api/v1/invites', {
      as: admin,
      payload: { email: 'carol@example.com' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token, url, invite } = created.json();
    expect(url).toBe(`http://127.0.0.1:8080/dashboard/invite#token=${token}`);
    expect(invite).toMatchObject({ email: 'carol@example.com', role: 'user', usedAt: null });

    expect(
      (
        await call('POST', '/api/v1/auth/accept-invite', {
          payload: { token: 'nope', password: 'carol password' },
        })
      ).statusCode,
    ).toBe(401);
    const accepted = await call('POST', '/api/v1/auth/accept-invite', {
      payload: { token, password: 'carol password' },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(accepted.json().user).toMatchObject({ email: 'carol@example.com', role: 'user' });
    const reused = await call('POST', '/api/v1/auth/accept-invite', {
      payload: { token, password: 'carol password 2' },
    });
    expect(reused.statusCode).toBe(409);
    expect(reused.json().code).toBe('conflict');

    userBrowser = { cookie: sessionCookie(accepted), csrf: accepted.json().csrfToken };
    for (const [method, url] of [
      ['GET', '/api/v1/users'],
      ['GET', '/api/v1/invites'],
    ] as const) {
      const res = await call(method, url, { as: userBrowser });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    const adminScore = (await call('GET', '/api/v1/score', { as: admin })).json().runId;
    const peek = await call('POST', `/api/v1/score/${adminScore}/videos/upload-url`, {
      as: userBrowser,
      payload: { fileName: 'a.mp4', contentType: 'video/mp4', prompt: 'x' },
    });
    expect(peek.statusCode).toBe(403);
    const made = await call('POST', '/api/v1/api-keys', { as: userBrowser, payload: { name: 'carol-key' } });
    userKey = made.json().key;
  });

  it('an expired invite is refused (409)', async () => {
    const me = (await call('GET', '/api/v1/auth/session', { as: admin })).json().user;
    const { token, invite } = await server.deps.services.users.createInvite(me.id, {
      email: 'late@example.com',
    });
    await server.deps.db
      .updateTable('invites')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', invite.id)
      .execute();
    const res = await call('POST', '/api/v1/auth/accept-invite', {
      payload: { token, password: 'late password' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/expired/);
  });

  it('disabling a user signs them out, revokes their keys and refuses their sign-in', async () => {
    const users = (await call('GET', '/api/v1/users', { as: admin })).json().items;
    const carol = users.find((u: { email: string | null }) => u.email === 'carol@example.com');
    const self = users.find((u: { role: string }) => u.role === 'admin');
    expect((await call('POST', `/api/v1/users/${self.id}/disable`, { as: admin })).statusCode).toBe(409);
    const res = await call('POST', `/api/v1/users/${carol.id}/disable`, { as: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().disabledAt).not.toBeNull();
    expect((await call('GET', '/api/v1/auth/session', { as: userBrowser })).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/score', { headers: { 'x-api-key': userKey } })).statusCode).toBe(401);
    const signIn = await call('POST', '/api/v1/auth/sign-in', {
      payload: { email: 'carol@example.com', password: 'carol password' },
    });
    expect(signIn.statusCode).toBe(401);
    expect(signIn.json().detail).toBe('wrong email or password');
  });
});

describe('sessions and passwords', () => {
  it('an idle or past-its-end session is signed out (401)', async () => {
    const idle = await signIn(ADMIN.email, ADMIN.password);
    const old = await signIn(ADMIN.email, ADMIN.password);
    const rows = await server.deps.db
      .selectFrom('web_sessions')
      .select(['id', 'created_at'])
      .orderBy('created_at', 'desc')
      .limit(2)
      .execute();
    expect(rows).toHaveLength(2);
    const idleMs = server.deps.config.sessionIdleMinutes * 60_000;
    // The newest is `old`; the one before it `idle`.
    await server.deps.db
      .updateTable('web_sessions')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', rows[0]!.id)
      .execute();
    await server.deps.db
      .updateTable('web_sessions')
      .set({ last_seen_at: Date.now() - idleMs - 1 })
      .where('id', '=', rows[1]!.id)
      .execute();
    for (const b of [idle, old]) {
      const res = await call('GET', '/api/v1/auth/session', { as: b });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
  });

  it('sessions are listed and revocable; changing the password signs the others out', async () => {
    const second = await signIn(ADMIN.email, ADMIN.password);
    const list = (await call('GET', '/api/v1/account/sessions', { as: admin })).json().items;
    expect(list.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(list.length).toBeGreaterThanOrEqual(2);
    const third = await signIn(ADMIN.email, ADMIN.password);
    const thirdId = (await call('GET', '/api/v1/account/sessions', { as: third }))
      .json()
      .items.find((s: { current: boolean }) => s.current).id;
    expect((await call('DELETE', `/api/v1/account/sessions/${thirdId}`, { as: admin })).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/auth/session', { as: third })).statusCode).toBe(401);

    const wrong = await call('POST', '/api/v1/account/password', {
      as: admin,
      payload: { currentPassword: 'not it at all', newPassword: 'a brand new password' },
    });
    expect(wrong.statusCode).toBe(403);
    const changed = await call('POST', '/api/v1/account/password', {
      as: admin,
      payload: { currentPassword: ADMIN.password, newPassword: 'a brand new password' },
    });
    expect(changed.statusCode, changed.body).toBe(204);
    expect((await call('GET', '/api/v1/auth/session', { as: second })).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/auth/session', { as: admin })).statusCode).toBe(200);
    await signIn(ADMIN.email, 'a brand new password');
  });

  it('sign-out ends the session and clears the cookie', async () => {
    const b = await signIn(ADMIN.email, 'a brand new password');
    expect((await call('POST', '/api/v1/auth/sign-out', { as: b, csrf: null })).statusCode).toBe(403);
    const out = await call('POST', '/api/v1/auth/sign-out', { as: b });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/vesta_session=;/);
    expect((await call('GET', '/api/v1/auth/session', { as: b })).statusCode).toBe(401);
  });
});
