/**
 * The web dashboard (packages/dashboard, built by `npm run build`), served by the service itself:
 * `/` redirects to `/dashboard/`; hashed files under `/dashboard/assets/` are immutable (cached a
 * year); every other `/dashboard/…` path answers the single-page app's `index.html` (no-cache, so a
 * new build is picked up at once), whose router shows the page. Nothing comes from a CDN. When the
 * dashboard has not been built, `/dashboard/` says so (404) instead of failing.
 *
 * The page may send requests to its own origin only, and to where its clips are uploaded when that
 * is elsewhere: VESTA_PUBLIC_URL's origin (the page may be opened under another name) and an S3
 * store's bucket endpoint (presigned uploads go straight there).
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

/**
 * The dashboard's page policy: scripts, styles and media from this origin only; requests to this
 * origin and to `uploadOrigins` (where clips are uploaded when that is not this origin).
 */
export function dashboardCsp(uploadOrigins: readonly string[]): string {
  const connect = ["'self'", ...new Set(uploadOrigins)].join(' ');
  return `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src ${connect}; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'`;
}

export interface DashboardOptions {
  dir: string;
  /** The origins clips are uploaded to besides the page's own (read when a page is first served). */
  uploadOrigins?: () => Promise<string[]>;
}

export function registerDashboard(app: Parameters<RouteModule>[0], options: DashboardOptions): void {
  const indexFile = path.join(options.dir, 'index.html');
  const html = existsSync(indexFile) ? readFileSync(indexFile) : null;
  const common = { config: { auth: false }, schema: { hide: true } } as const;
  // Worked out on the first page served and kept; asked again while it fails (an S3 store whose
  // credentials could not be had yet), the page meanwhile allowed its own origin only.
  let csp: string | null = options.uploadOrigins ? null : dashboardCsp([]);
  const policy = async (): Promise<string> => {
    if (csp !== null) return csp;
    try {
      csp = dashboardCsp((await options.uploadOrigins?.()) ?? []);
      return csp;
    } catch (e) {
      app.log.warn(
        { err: e },
        'the upload origin for the dashboard page policy is unknown; asked again at the next page',
      );
      return dashboardCsp([]);
    }
  };

  app.get('/', common, (_request, reply) => reply.redirect('/dashboard/', 302));

  const sendApp = async (reply: FastifyReply): Promise<FastifyReply> => {
    if (html === null)
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send(
          'The dashboard is not built: run `npm run build` in the repository, then restart the server.\n',
        );
    return reply
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', csp ?? (await policy()))
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

export const dashboardRoutes: RouteModule = (app, { deps }) => {
  registerDashboard(app, {
    dir: defaultDashboardDir(),
    uploadOrigins: async () => {
      const direct = await deps.blobs.directUploadOrigin();
      return [
        ...(deps.config.publicUrl === null ? [] : [new URL(deps.config.publicUrl).origin]),
        ...(direct === null ? [] : [direct]),
      ];
    },
  });
};
