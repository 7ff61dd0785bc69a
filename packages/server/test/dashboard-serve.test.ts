/**
 * The dashboard's files as the server serves them (after `npm run build`): `/` redirects to it,
 * the app's HTML is never cached and carries a strict CSP, hashed assets are immutable, and every
 * dashboard path falls back to the single-page app.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDashboardDir } from '../src/http/dashboard/dashboard.route.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
beforeAll(async () => {
  server = await startCoreServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('the dashboard', () => {
  it('is where / leads', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/dashboard/');
  });

  it('answers its HTML (no-cache, CSP) for every page path, so deep links work', async () => {
    for (const url of ['/dashboard/', '/dashboard/bench/bench_x', '/dashboard/api-keys']) {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.body).toContain('<div id="root">');
      // No CDN: every script and stylesheet comes from this server.
      for (const m of res.body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(m[1]).toMatch(/^\/dashboard\//);
    }
  });

  it('serves hashed assets as immutable, and a missing one as 404', async () => {
    const files = readdirSync(`${defaultDashboardDir()}/assets`);
    const js = files.find((f) => f.endsWith('.js'))!;
    const res = await server.app.inject({ method: 'GET', url: `/dashboard/assets/${js}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await server.app.inject({ method: 'GET', url: '/dashboard/assets/index-gone.js' });
    expect(missing.statusCode).toBe(404);
  });
});
