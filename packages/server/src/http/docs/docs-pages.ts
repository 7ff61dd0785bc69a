/**
 * The documentation site's content, built once from the Markdown pages in `docs/`:
 * each page as Markdown, the llms.txt index (H1, blockquote summary, H2 sections of links,
 * an `Optional` section last) and llms-full.txt (every page concatenated).
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
    pages: ['api', 'errors', 'score', 'rank', 'bench', 'dimensions-api', 'runners', 'uploads'],
  },
  { title: 'Guides', pages: ['dashboard', 'dimensions', 'decoding', 'sdk', 'cli', 'python'] },
  { title: 'Optional', pages: ['architecture', 'benchmarks', 'changelog'] },
];
const FALLBACK_SECTION = 'Guides';

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
      'the agent recipe. `/llms-full.txt` holds every page in one file; the machine-readable API ' +
      'description is `/api/v1/openapi.json`.',
    ...groups.flatMap((g) => ['', `## ${g.title}`, '', ...g.pages.map(linkLine)]),
    '',
  ].join('\n');

  const llmsFullTxt = [
    `# ${siteName}: full documentation`,
    '',
    `> ${summary}`,
    '',
    ...ordered.map((p) => `<!-- page: ${p.url} -->\n\n${p.markdown.trim()}\n`),
  ].join('\n');

  const byName = new Map(pages.map((p) => [p.name, p]));
  return {
    pages: ordered,
    index: byName.get('index'),
    llmsTxt,
    llmsFullTxt,
    page: (name) => byName.get(name),
  };
}
