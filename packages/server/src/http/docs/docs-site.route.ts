/**
 * The documentation site, served by the service outside /api/v1 and without authentication:
 * `/llms.txt` (index), `/llms-full.txt` (the agent-facing reference, under 32 KB), `/ai-agents.md` (the agent recipe),
 * `/docs/` (the index page; `/docs` too, trailing slashes are ignored) and `/docs/<name>.md`
 * (each page as Markdown). Pages are read once, when the routes are declared.
 */
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { notFound } from '../../errors.js';
import type { RouteModule, TypedApp } from '../app-deps.js';
import { buildDocsSite } from './docs-pages.js';
import type { DocPage } from './docs-pages.js';

const MARKDOWN = 'text/markdown; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

/** The repository's `docs/` folder (same depth from `src/http/docs` and `dist/http/docs`). */
export function defaultDocsDir(): string {
  return fileURLToPath(new URL('../../../../../docs/', import.meta.url));
}

function sendPage(reply: FastifyReply, page: DocPage | undefined): FastifyReply {
  if (!page) throw notFound('documentation page');
  return reply.type(MARKDOWN).send(page.markdown);
}

/** Declares the site's routes on `app`; the pages are read now, once. */
export function registerDocsSite(app: TypedApp, options: { docsDir: string }): void {
  const site = buildDocsSite({ docsDir: options.docsDir });
  const common = { config: { auth: false }, schema: { hide: true } } as const;

  app.get('/llms.txt', common, (_request, reply) => reply.type(TEXT).send(site.llmsTxt));
  app.get('/llms-full.txt', common, (_request, reply) => reply.type(TEXT).send(site.llmsFullTxt));
  app.get('/ai-agents.md', common, (_request, reply) => sendPage(reply, site.page('ai-agents')));
  app.get('/docs/', common, (_request, reply) =>
    site.index ? sendPage(reply, site.index) : reply.type(MARKDOWN).send(site.llmsTxt),
  );
  app.get<{ Params: { page: string } }>('/docs/:page', common, (request, reply) => {
    const name = /^([a-z0-9][a-z0-9-]*)\.md$/.exec(request.params.page)?.[1];
    return sendPage(reply, name === undefined ? undefined : site.page(name));
  });
}

/** The site over the repository's `docs/` folder, as a route module of the app. */
export const docsSiteRoutes: RouteModule = (app) => {
  registerDocsSite(app, { docsDir: defaultDocsDir() });
};
