/**
 * The documentation site: /llms.txt in the llms.txt format with a link to every page, every link
 * answering 200 without a key, /llms-full.txt holding the agent-facing text within its budget and
 * linking the rest, each page as Markdown.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LLMS_FULL_CONTENT,
  LLMS_FULL_MAX_BYTES,
  buildDocsSite,
  compactTables,
} from '../src/http/docs/docs-pages.js';
import { defaultDocsDir } from '../src/http/docs/docs-site.route.js';
import { startTestServer } from './helpers/bench-app.js';
import type { TestServer } from './helpers/bench-app.js';

const DOCS = defaultDocsDir();
const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const get = (url: string) => server.app.inject({ method: 'GET', url });

/** Markdown link targets: `[text](target)`. */
function links(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('/llms.txt', () => {
  it('follows the llms.txt format: H1, blockquote summary, H2 sections of links, Optional last', async () => {
    const res = await get('/llms.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const lines = res.body.split('\n');
    expect(lines[0]).toBe('# Vesta');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> \S/);
    const h2 = lines.filter((l) => l.startsWith('## '));
    expect(h2[0]).toBe('## Start here');
    if (h2.includes('## Optional')) expect(h2.at(-1)).toBe('## Optional');
    // Only H1, H2, blockquote, prose and `- [name](url): notes` list items.
    for (const line of lines.filter((l) => l.startsWith('- ')))
      expect(line).toMatch(/^- \[[^\]]+\]\(\/[^)]+\.md\)(: .+)?$/);
    expect(lines.filter((l) => /^#{3,}/.test(l))).toEqual([]);
  });

  it('links every page in docs/, and every link answers 200 without an API key', async () => {
    const body = (await get('/llms.txt')).body;
    const targets = links(body);
    expect(targets.length).toBe(pages.length);
    for (const file of pages) {
      const name = file.slice(0, -3);
      expect(targets).toContain(name === 'ai-agents' ? '/ai-agents.md' : `/docs/${name}.md`);
    }
    for (const target of targets) {
      const res = await get(target);
      expect(res.statusCode, target).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      const file = target === '/ai-agents.md' ? 'ai-agents.md' : target.slice('/docs/'.length);
      expect(res.body).toBe(readFileSync(path.join(DOCS, file), 'utf8'));
    }
  });
});

describe('/llms-full.txt and pages', () => {
  it('holds the agent-facing text within its budget, and links every other page', async () => {
    const res = await get('/llms-full.txt');
    expect(res.statusCode).toBe(200);
    expect(res.body.startsWith('# Vesta: documentation for agents\n')).toBe(true);
    const bytes = Buffer.byteLength(res.body);
    expect(bytes, `/llms-full.txt is ${bytes} bytes`).toBeLessThanOrEqual(LLMS_FULL_MAX_BYTES);
    expect(LLMS_FULL_MAX_BYTES).toBe(32 * 1024);
    // The recipe whole, and every named reference section (a renamed heading fails here).
    expect(res.body).toContain(compactTables(readFileSync(path.join(DOCS, 'ai-agents.md'), 'utf8').trim()));
    for (const { page, sections } of LLMS_FULL_CONTENT)
      for (const title of sections ?? []) expect(res.body, `${page}: ${title}`).toContain(`\n## ${title}\n`);
    for (const needed of ['X-API-Key', 'rate_limited', 'Idempotency-Key', 'upload-url', 'confirm-upload'])
      expect(res.body).toContain(needed);
    // Internals stay behind links: operator configuration, architecture, benchmarks.
    expect(res.body).not.toContain('## Configuration');
    expect(res.body).not.toContain(readFileSync(path.join(DOCS, 'architecture.md'), 'utf8').split('\n')[2]);
    const targets = links(res.body.slice(res.body.indexOf('## Other pages')));
    for (const file of pages)
      expect(targets).toContain(file === 'ai-agents.md' ? '/ai-agents.md' : `/docs/${file}`);
  });

  it('compacts Markdown tables without changing their cells', () => {
    const table = [
      '| code      | When            |',
      '| --------- | :-------------: |',
      '| `a \\| b` | one   two       |',
      'text | not a table',
    ].join('\n');
    expect(compactTables(table)).toBe(
      ['| code | When |', '| --- | :---: |', '| `a \\| b` | one   two |', 'text | not a table'].join('\n'),
    );
  });

  it('serves the index at /docs/ and /docs, and 404 not_found for anything else', async () => {
    const index = readFileSync(path.join(DOCS, 'index.md'), 'utf8');
    expect((await get('/docs/')).body).toBe(index);
    expect((await get('/docs')).body).toBe(index);
    expect((await get('/docs/index.md')).body).toBe(index);
    for (const url of [
      '/docs/missing.md',
      '/docs/INDEX.md',
      '/docs/index',
      '/docs/..%2Fpackage.json',
      '/docs/%2e%2e%2fREADME.md',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('resolves every internal link of every page', async () => {
    const served = pages.map((file) =>
      file === 'ai-agents.md' ? ['/ai-agents.md', '/'] : [`/docs/${file}`, '/docs/'],
    );
    for (const [url, base] of [['/docs/', '/docs/'], ...served] as Array<[string, string]>) {
      const body = (await get(url)).body;
      for (const target of links(body).filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#'))) {
        const resolved = new URL(target, `http://docs.test${base}`).pathname;
        expect((await get(resolved)).statusCode, `${url} → ${target}`).toBe(200);
      }
    }
  });

  it('keeps the documentation routes out of the OpenAPI document', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1'))).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/bench',
        '/api/v1/bench/{id}/csv',
        '/api/v1/dimensions',
        '/api/v1/models',
      ]),
    );
  });
});

describe('buildDocsSite', () => {
  it('titles, summarises and groups pages; unknown pages go to Guides, Optional comes last', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-docs-'));
    try {
      writeFileSync(path.join(dir, 'index.md'), '# Home\n\nWelcome to the docs. Second sentence.\n');
      writeFileSync(
        path.join(dir, 'benchmarks.md'),
        '# Benchmarks\n\n| a |\n|---|\n\nFigures from scripts.\n',
      );
      writeFileSync(path.join(dir, 'zebra.md'), 'No heading here, only text.\n');
      writeFileSync(path.join(dir, 'Bad Name.md'), '# Ignored\n');
      writeFileSync(path.join(dir, 'notes.txt'), 'not markdown');
      const site = buildDocsSite({ docsDir: dir, siteName: 'Test', summary: 'A summary.' });
      expect(site.pages.map((p) => p.name)).toEqual(['index', 'zebra', 'benchmarks']);
      expect(site.page('benchmarks')).toMatchObject({
        title: 'Benchmarks',
        summary: 'Figures from scripts.',
        url: '/docs/benchmarks.md',
      });
      expect(site.page('zebra')).toMatchObject({ title: 'zebra', summary: 'No heading here, only text.' });
      expect(site.llmsTxt).toBe(
        [
          '# Test',
          '',
          '> A summary.',
          '',
          expect.any(String),
          '',
          '## Start here',
          '',
          '- [Home](/docs/index.md): Welcome to the docs. Second sentence.',
          '',
          '## Guides',
          '',
          '- [zebra](/docs/zebra.md): No heading here, only text.',
          '',
          '## Optional',
          '',
          '- [Benchmarks](/docs/benchmarks.md): Figures from scripts.',
          '',
        ]
          .join('\n')
          .replace(String(expect.any(String)), site.llmsTxt.split('\n')[4]!),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
