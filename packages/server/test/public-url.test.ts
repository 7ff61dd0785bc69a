/**
 * Where links are minted (http/public-base.ts). With VESTA_PUBLIC_URL unset, upload URLs and
 * invite links are minted under the origin each request came to when its Host names this machine
 * (loopback, the listen address, the machine's addresses when listening on all, its host name, or
 * VESTA_ALLOWED_HOSTS), so a dashboard opened at localhost, 127.0.0.1 or a LAN address uploads to
 * the origin it was loaded from; any other Host is 400 `validation_failed` and leaves nothing
 * behind. With VESTA_PUBLIC_URL set, it is used whatever the Host, and the dashboard's page policy
 * allows sending to it.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { hostAllowed } from '../src/http/public-base.js';
import { clip, startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  // VESTA_PUBLIC_URL empty is unset.
  server = await startCoreServer({ env: { VESTA_PUBLIC_URL: '', VESTA_ALLOWED_HOSTS: 'vesta.lan' } });
  key = await server.key();
});
afterAll(async () => {
  await server?.stop();
});

const asHost = (host: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  server.app.inject({
    method,
    url,
    headers: { host, 'x-api-key': key },
    ...(payload === undefined ? {} : { payload }),
  });

async function mint(host: string): Promise<LightMyRequestResponse> {
  const { runId } = (await asHost(host, 'GET', '/api/v1/score')).json<{ runId: string }>();
  return asHost(host, 'POST', `/api/v1/score/${runId}/videos/upload-url`, {
    fileName: 'clip.mp4',
    contentType: 'video/mp4',
    prompt: 'a toad practising karate',
  });
}

describe('with VESTA_PUBLIC_URL unset', () => {
  it('mints upload URLs under the origin the request came to, for every name of this machine', async () => {
    for (const host of [
      'localhost:8080',
      '127.0.0.1:8080',
      '127.0.1.1:9000',
      '[::1]:8080',
      'LOCALHOST:8080',
      'vesta.localhost',
      `${os.hostname()}:8080`,
      'vesta.lan:8080',
    ]) {
      const res = await mint(host);
      expect(res.statusCode, `${host}: ${res.body}`).toBe(201);
      expect(res.json().uploadUrl).toMatch(
        new RegExp(
          `^http://${host.toLowerCase().replace(/[.[\]]/g, '\\$&')}/api/v1/uploads/vid_\\w+\\?token=`,
        ),
      );
    }
  });

  it('the URL minted for 127.0.0.1 takes the clip, which confirm then queues', async () => {
    const host = '127.0.0.1:8080';
    const ticket = (await mint(host)).json<{ videoId: string; uploadUrl: string }>();
    const u = new URL(ticket.uploadUrl);
    const put = await server.app.inject({
      method: 'PUT',
      url: u.pathname + u.search,
      headers: { host: u.host, 'content-type': 'video/mp4' },
      payload: readFileSync(clip('modelscope-t2v__toad-karate.mp4')),
    });
    expect(put.statusCode, put.body).toBe(200);
    const { runId } = (await asHost(host, 'GET', '/api/v1/score')).json<{ runId: string }>();
    const confirmed = await asHost(host, 'POST', `/api/v1/score/${runId}/videos/confirm-upload`, {
      videoId: ticket.videoId,
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json().state).toBe('queued');
  });

  it('refuses a Host that does not name this machine, in words naming both settings, and keeps nothing', async () => {
    const before = (await asHost('localhost', 'GET', '/api/v1/score')).json<{ videos: unknown[] }>().videos
      .length;
    for (const host of ['evil.example', 'evil.example:8080', '10.255.255.254:8080', 'a b', 'x/y']) {
      const res = await mint(host);
      expect(res.statusCode, host).toBe(400);
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().detail).toContain('VESTA_PUBLIC_URL');
      expect(res.json().detail).toContain('VESTA_ALLOWED_HOSTS');
    }
    const after = (await asHost('localhost', 'GET', '/api/v1/score')).json<{ videos: unknown[] }>().videos;
    expect(after).toHaveLength(before);
  });

  it('mints invite links under the origin of the request, and refuses a foreign Host before making one', async () => {
    const setup = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      headers: { host: '127.0.0.1:8080' },
      payload: { email: 'admin@example.com', password: 'a long admin password' },
    });
    expect(setup.statusCode, setup.body).toBe(201);
    const cookie = setup.cookies.find((c) => c.name === 'vesta_session')!.value;
    // Secure only where the public URL is https: a cookie for http://127.0.0.1 must not be.
    expect(setup.cookies.find((c) => c.name === 'vesta_session')!.secure).toBeFalsy();
    const invite = (host: string, email: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/invites',
        headers: { host, 'x-csrf-token': setup.json<{ csrfToken: string }>().csrfToken },
        cookies: { vesta_session: cookie },
        payload: { email },
      });
    const local = await invite('127.0.0.1:8080', 'one@example.com');
    expect(local.statusCode, local.body).toBe(201);
    expect(local.json().url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/dashboard\/invite#token=/);
    const foreign = await invite('evil.example', 'two@example.com');
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().code).toBe('validation_failed');
    const open = await server.deps.db.selectFrom('invites').select('email').execute();
    expect(open.map((i) => i.email)).toEqual(['one@example.com']);
  });
});

describe('hostAllowed', () => {
  const config = (host: string, allowedHosts: string[] = []) => ({ host, allowedHosts, publicUrl: null });
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal)
    .map((a) => (a!.family === 'IPv6' ? `[${a!.address.replace(/%.*$/, '')}]` : a!.address));

  it('listening on all addresses: every address of the machine is one of its names', () => {
    for (const address of addresses) {
      expect(hostAllowed(config('0.0.0.0'), `${address}:8080`), address).toBe(true);
      expect(hostAllowed(config('::'), address), address).toBe(true);
    }
  });

  it('listening on one address: that one and loopback, not the machine’s other addresses', () => {
    expect(hostAllowed(config('192.0.2.7'), '192.0.2.7:8080')).toBe(true);
    expect(hostAllowed(config('192.0.2.7'), 'localhost:8080')).toBe(true);
    for (const address of addresses)
      if (address !== '192.0.2.7') expect(hostAllowed(config('192.0.2.7'), address), address).toBe(false);
    expect(hostAllowed(config('192.0.2.7', ['vesta.lan']), 'VESTA.lan:1')).toBe(true);
    expect(hostAllowed(config('192.0.2.7'), 'vesta.lan:1')).toBe(false);
  });
});

describe('with VESTA_PUBLIC_URL set', () => {
  let fixed: CoreTestServer;
  beforeAll(async () => {
    fixed = await startCoreServer({ env: { VESTA_PUBLIC_URL: 'https://vesta.example.com/' } });
  });
  afterAll(async () => {
    await fixed?.stop();
  });

  it('mints under it whatever the Host, and the dashboard page may send there', async () => {
    const k = await fixed.key();
    const headers = { host: 'anything.example', 'x-api-key': k };
    const { runId } = (await fixed.app.inject({ method: 'GET', url: '/api/v1/score', headers })).json<{
      runId: string;
    }>();
    const res = await fixed.app.inject({
      method: 'POST',
      url: `/api/v1/score/${runId}/videos/upload-url`,
      headers,
      payload: { fileName: 'clip.mp4', contentType: 'video/mp4', prompt: 'p' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().uploadUrl).toMatch(/^https:\/\/vesta\.example\.com\/api\/v1\/uploads\//);
    const page = await fixed.app.inject({ method: 'GET', url: '/dashboard/score' });
    expect(page.headers['content-security-policy']).toContain(
      "connect-src 'self' https://vesta.example.com;",
    );
    expect(loadConfig({ VESTA_PUBLIC_URL: 'https://vesta.example.com/' }).publicUrl).toBe(
      'https://vesta.example.com',
    );
  });
});
