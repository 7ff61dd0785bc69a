/**
 * The documentation site's content, built once from the Markdown pages in `docs/`:
 * each page as Markdown, the llms.txt index (H1, blockquote summary, H2 sections of links,
 * an `Optional` section last) and llms-full.txt: the agent-facing text in one file (the agent
 * recipe and the API reference an agent needs: authentication, errors, idempotency, uploads,
 * rate limits, Bench runs), tables compacted, every other page linked rather than inlined. An agent
 * pays for every byte, so the file is kept under `LLMS_FULL_MAX_BYTES` (a test holds it there).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocPage {
  /** File name without `.md`; lower-case letters, digits and dashes. */
  name: string;
  /** Root-relative URL the page is served at. */
  url: string;
  title: string;
  summary: string;
  markdown: string;
}

export interface DocsSite {
  pages: DocPage[];
  /** The page served at `/docs/` (docs/index.md). */
  index: DocPage | undefined;
  llmsTxt: string;
  llmsFullTxt: string;
  page(name: string): DocPage | undefined;
}

export interface DocsSiteOptions {
  docsDir: string;
  siteName?: string;
  summary?: string;
}

const DEFAULT_SITE_NAME = 'Vesta';
const DEFAULT_SUMMARY =
  "Vesta is a self-hostable Video Evaluation Service: it scores text-to-video clips on VBench's 16 " +
  'dimensions (Score), ranks candidate clips made for one prompt (Rank), and benchmarks video ' +
  'generators on named dimensions (Bench). It is operated over HTTP with JSON bodies under /api/v1; ' +
  'every request carries an `X-API-Key` header.';

/** Where each known page is listed in llms.txt; pages not named here go to "Guides". */
const SECTIONS: ReadonlyArray<{ title: string; pages: readonly string[] }> = [
  { title: 'Start here', pages: ['index', 'ai-agents', 'quickstart'] },
  {
    title: 'API reference',
    pages: ['api', 'errors', 'score', 'rank', 'bench', 'judging', 'dimensions-api', 'runners', 'uploads'],
  },
  { title: 'Guides', pages: ['dashboard', 'dimensions', 'decoding', 'sdk', 'cli', 'python'] },
  { title: 'Optional', pages: ['architecture', 'benchmarks', 'changelog'] },
];
const FALLBACK_SECTION = 'Guides';

/**
 * What /llms-full.txt inlines, in order: whole pages, or named H2 sections of a page. Internals
 * (architecture, benchmarks, validation, formulas, operator configuration) stay behind links.
 */
export const LLMS_FULL_CONTENT: ReadonlyArray<{ page: string; sections?: readonly string[] }> = [
  { page: 'ai-agents' },
  {
    page: 'api',
    sections: [
      'Authentication',
      'Errors',
      'Idempotency',
      'Uploads (Score and Rank)',
      'Video states',
      'Score and Rank sessions',
      'Rate limits',
    ],
  },
  { page: 'bench', sections: ['Creating a run', 'The run', 'States'] },
];

/** The budget of /llms-full.txt in bytes (the interface itself is about 22 KB). */
export const LLMS_FULL_MAX_BYTES = 32 * 1024;

/** Markdown tables without the alignment padding (the same table in far fewer bytes). */
export function compactTables(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => {
      const t = line.trim();
      if (!(t.startsWith('|') && t.endsWith('|') && t.length > 1)) return line;
      const cells = t
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
      const rule = cells.every((c) => /^:?-{3,}:?$/.test(c));
      const out = rule
        ? cells.map((c) => `${c.startsWith(':') ? ':' : ''}---${c.endsWith(':') ? ':' : ''}`)
        : cells;
      return `| ${out.join(' | ')} |`;
    })
    .join('\n');
}

/** The H2 sections of a page by heading text, each with its heading and body. */
function h2Sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let inFence = false;
  let current: { title: string; lines: string[] } | null = null;
  for (const line of markdown.split('\n')) {
    if (line.trim().startsWith('```')) inFence = !inFence;
    const h2 = inFence ? null : /^##\s+(.+?)\s*$/.exec(line);
    if (h2) {
      if (current) out.set(current.title, current.lines.join('\n').trim());
      current = { title: h2[1]!, lines: [line] };
    } else current?.lines.push(line);
  }
  if (current) out.set(current.title, current.lines.join('\n').trim());
  return out;
}

const PAGE_NAME = /^[a-z0-9][a-z0-9-]*$/;

export function pageUrl(name: string): string {
  return name === 'ai-agents' ? '/ai-agents.md' : `/docs/${name}.md`;
}

function titleOf(markdown: string, name: string): string {
  const h1 = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown);
  return h1?.[1] ?? name;
}

/** The first prose paragraph after the H1, on one line, cut at a sentence end near 200 chars. */
function summaryOf(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  let i = lines.findIndex((l) => /^#\s/.test(l));
  i = i < 0 ? 0 : i + 1;
  const para: string[] = [];
  let inFence = false;
  for (; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line.startsWith('```')) inFence = !inFence;
    if (inFence || line.startsWith('```')) {
      if (para.length > 0) break;
      continue;
    }
    if (line === '') {
      if (para.length > 0) break;
      continue;
    }
    if (/^(#|\||<!--|[-*] |\d+\. |>)/.test(line)) {
      if (para.length > 0) break;
      continue;
    }
    para.push(line);
  }
  // Plain text: a link keeps its words, so each llms.txt entry holds exactly one link.
  const text = para
    .join(' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= 200) return text;
  const cut = text.slice(0, 200);
  const end = cut.lastIndexOf('. ');
  return end > 60 ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(' '))}…`;
}

export function loadDocPages(docsDir: string): DocPage[] {
  const files = readdirSync(docsDir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => e.name)
    .sort();
  const pages: DocPage[] = [];
  for (const file of files) {
    const name = file.slice(0, -3);
    if (!PAGE_NAME.test(name)) continue;
    const markdown = readFileSync(join(docsDir, file), 'utf8');
    pages.push({
      name,
      url: pageUrl(name),
      title: titleOf(markdown, name),
      summary: summaryOf(markdown),
      markdown,
    });
  }
  return pages;
}

function sectionOf(name: string): string {
  return SECTIONS.find((s) => s.pages.includes(name))?.title ?? FALLBACK_SECTION;
}

/** Pages grouped into llms.txt sections, in section order, known pages first in their listed order. */
export function groupPages(pages: readonly DocPage[]): Array<{ title: string; pages: DocPage[] }> {
  return SECTIONS.map((section) => {
    const members = pages.filter((p) => sectionOf(p.name) === section.title);
    const position = (p: DocPage): number => {
      const i = section.pages.indexOf(p.name);
      return i < 0 ? section.pages.length : i;
    };
    members.sort((a, b) => position(a) - position(b) || a.name.localeCompare(b.name));
    return { title: section.title, pages: members };
  }).filter((s) => s.pages.length > 0);
}

function linkLine(page: DocPage): string {
  return page.summary ? `- [${page.title}](${page.url}): ${page.summary}` : `- [${page.title}](${page.url})`;
}

export function buildDocsSite(options: DocsSiteOptions): DocsSite {
  const siteName = options.siteName ?? DEFAULT_SITE_NAME;
  const summary = options.summary ?? DEFAULT_SUMMARY;
  const pages = loadDocPages(options.docsDir);
  const groups = groupPages(pages);
  const ordered = groups.flatMap((g) => g.pages);

  const llmsTxt = [
    `# ${siteName}`,
    '',
    `> ${summary}`,
    '',
    'Every link below is a plain Markdown page served by this Vesta server. Agents should start with ' +
      'the agent recipe. `/llms-full.txt` holds the agent-facing reference in one file (the recipe, ' +
      'authentication, errors, idempotency, uploads, rate limits, Bench runs); the machine-readable ' +
      'API description is `/api/v1/openapi.json`.',
    ...groups.flatMap((g) => ['', `## ${g.title}`, '', ...g.pages.map(linkLine)]),
    '',
  ].join('\n');

  const byName = new Map(pages.map((p) => [p.name, p]));
  const inlined = LLMS_FULL_CONTENT.flatMap(({ page, sections }) => {
    const p = byName.get(page);
    if (!p) return [];
    if (!sections) return [`<!-- page: ${p.url} -->\n\n${compactTables(p.markdown.trim())}\n`];
    const all = h2Sections(p.markdown);
    const kept = sections.flatMap((title) => {
      const text = all.get(title);
      return text === undefined ? [] : [compactTables(text)];
    });
    return [
      `<!-- page: ${p.url} (sections: ${sections.join(', ')}; the whole page at that URL) -->\n\n# ${p.title}\n\n${kept.join('\n\n')}\n`,
    ];
  });
  const llmsFullTxt = [
    `# ${siteName}: documentation for agents`,
    '',
    `> ${summary}`,
    '',
    'This file holds what an agent needs to use the API: the recipe, then the reference of ' +
      'authentication, errors, idempotency, uploads, rate limits and Bench runs. Every endpoint, ' +
      'field and error code is in `/api/v1/openapi.json`; the other pages are linked at the end.',
    '',
    ...inlined,
    '## Other pages',
    '',
    ...ordered.map((p) => `- [${p.title}](${p.url})`),
    '',
  ].join('\n');

  return {
    pages: ordered,
    index: byName.get('index'),
    llmsTxt,
    llmsFullTxt,
    page: (name) => byName.get(name),
  };
}
