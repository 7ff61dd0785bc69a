/**
 * The web dashboard (packages/dashboard, built by `npm run build`), served by the service itself:
 * `/` redirects to `/dashboard/`; hashed files under `/dashboard/assets/` are immutable (cached a
 * year); every other `/dashboard/…` path answers the single-page app's `index.html` (no-cache, so a
 * new build is picked up at once), whose router shows the page. Nothing comes from a CDN. When the
 * dashboard has not been built, `/dashboard/` says so (404) instead of failing.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { RouteModule } from '../app-deps.js';

/** packages/dashboard/dist (same depth from `src/http/dashboard` and `dist/http/dashboard`). */
export function defaultDashboardDir(): string {
  return fileURLToPath(new URL('../../../../dashboard/dist/', import.meta.url));
}

/** The dashboard's page policy: scripts, styles, media and API calls from this origin only. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export function registerDashboard(app: Parameters<RouteModule>[0], options: { dir: string }): void {
  const indexFile = path.join(options.dir, 'index.html');
  const html = existsSync(indexFile) ? readFileSync(indexFile) : null;
  const common = { config: { auth: false }, schema: { hide: true } } as const;

  app.get('/', common, (_request, reply) => reply.redirect('/dashboard/', 302));

  const sendApp = (reply: FastifyReply): FastifyReply => {
    if (html === null)
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send(
          'The dashboard is not built: run `npm run build` in the repository, then restart the server.\n',
        );
    return reply
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(html);
  };
  // `/dashboard` too: the router ignores trailing slashes.
  app.get('/dashboard/', common, (_request, reply) => sendApp(reply));
  app.get('/dashboard/*', common, (request, reply) =>
    // A missing hashed file is a 404, not the app (a stale page asking for an old build's file).
    request.url.startsWith('/dashboard/assets/')
      ? reply.code(404).type('text/plain; charset=utf-8').send('not found\n')
      : sendApp(reply),
  );

  const assets = path.join(options.dir, 'assets');
  if (existsSync(assets))
    void app.register(fastifyStatic, {
      root: assets,
      prefix: '/dashboard/assets/',
      decorateReply: false,
      index: false,
      wildcard: false,
      cacheControl: false,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.setHeader('X-Content-Type-Options', 'nosniff');
      },
    });
}

export const dashboardRoutes: RouteModule = (app) => {
  registerDashboard(app, { dir: defaultDashboardDir() });
};
