/**
 * A documentation page of this server (`GET /docs/<name>.md`) rendered in the dashboard, so a link
 * to the docs opens a readable page rather than raw Markdown. The renderer covers what docs/ uses:
 * headings, paragraphs, lists, fenced code, tables, inline code, bold, italics and links. It builds
 * React elements (text is never parsed as HTML).
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert } from './ui';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'code'; text: string }
  | { kind: 'table'; head: string[]; rows: string[][] }
  | { kind: 'quote'; text: string };

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));

/** Markdown's block structure, line by line. */
export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const listItem = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
      i++;
      continue;
    }
    if (line.trim().startsWith('|') && /^\s*\|?\s*:?-{2,}/.test(lines[i + 1] ?? '')) {
      const head = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && lines[i]!.trim().startsWith('|')) rows.push(cells(lines[i++]!));
      blocks.push({ kind: 'table', head, rows });
      continue;
    }
    const first = listItem.exec(line);
    if (first) {
      const ordered = first[2] !== undefined;
      const items: string[] = [];
      while (i < lines.length) {
        const l = lines[i]!;
        const m = listItem.exec(l);
        if (m) items.push(m[3]!);
        else if (l.trim() !== '' && /^\s+/.test(l)) items[items.length - 1] += ` ${l.trim()}`;
        else break;
        i++;
      }
      blocks.push({ kind: 'list', ordered, items });
      continue;
    }
    if (line.startsWith('>')) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.startsWith('>')) body.push(lines[i++]!.replace(/^>\s?/, ''));
      blocks.push({ kind: 'quote', text: body.join(' ') });
      continue;
    }
    const body: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !/^(#{1,6}\s|\s*```|\s*~~~|>)/.test(lines[i]!) &&
      !listItem.test(lines[i]!) &&
      !lines[i]!.trim().startsWith('|')
    )
      body.push(lines[i++]!.trim());
    if (body.length === 0) {
      body.push(line.trim());
      i++;
    }
    blocks.push({ kind: 'paragraph', text: body.join(' ') });
  }
  return blocks;
}

/** A docs link (`models.md`, `./api.md#x`, `/docs/cli.md`) as a dashboard route; others as they are. */
function docsRoute(href: string): string | null {
  const m = /^(?:\.\/|\/docs\/)?([a-z0-9][a-z0-9-]*)\.md(#[\w-]*)?$/.exec(href);
  return m ? `/docs/${m[1]}${m[2] ?? ''}` : null;
}

/** Inline Markdown: `code`, **bold**, *italics*, [text](url) and <url>. */
export function inline(text: string, key = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern =
    /`([^`]+)`|\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)(.+?)\*(?!\w)|\[([^\]]+)\]\(([^)\s]+)\)|<(https?:\/\/[^>\s]+)>/g;
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = `${key}-${n++}`;
    if (m[1] !== undefined) out.push(<code key={k}>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong key={k}>{inline(m[2], k)}</strong>);
    else if (m[3] !== undefined) out.push(<em key={k}>{inline(m[3], k)}</em>);
    else if (m[4] !== undefined) {
      const href = m[5]!;
      const route = docsRoute(href);
      out.push(
        route ? (
          <Link key={k} to={route}>
            {inline(m[4], k)}
          </Link>
        ) : /^(https?:|#|\/)/.test(href) ? (
          <a key={k} href={href}>
            {inline(m[4], k)}
          </a>
        ) : (
          // A path in the repository (not served): the words only.
          <span key={k}>{inline(m[4], k)}</span>
        ),
      );
    } else if (m[6] !== undefined)
      out.push(
        <a key={k} href={m[6]}>
          {m[6]}
        </a>,
      );
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-');

export function Markdown({ source }: { source: string }) {
  const blocks = parseBlocks(source);
  return (
    <div className="markdown">
      {blocks.map((b, i) => {
        const k = `b${i}`;
        switch (b.kind) {
          case 'heading': {
            // The document's title is the page's h1; any other heading sits below it.
            const level = Math.max(2, b.level);
            const Tag = `h${level}` as 'h2';
            return (
              <Tag key={k} id={slug(b.text)}>
                {inline(b.text, k)}
              </Tag>
            );
          }
          case 'paragraph':
            return <p key={k}>{inline(b.text, k)}</p>;
          case 'quote':
            return <blockquote key={k}>{inline(b.text, k)}</blockquote>;
          case 'code':
            return (
              <pre key={k} className="code-block" tabIndex={0}>
                <code>{b.text}</code>
              </pre>
            );
          case 'list': {
            const items = b.items.map((it, j) => <li key={`${k}-${j}`}>{inline(it, `${k}-${j}`)}</li>);
            return b.ordered ? <ol key={k}>{items}</ol> : <ul key={k}>{items}</ul>;
          }
          case 'table':
            return (
              <div key={k} className="table-wrap" tabIndex={0} role="region" aria-label="Table">
                <table>
                  <thead>
                    <tr>
                      {b.head.map((h, j) => (
                        <th scope="col" key={`${k}-h${j}`}>
                          {inline(h, `${k}-h${j}`)}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {b.rows.map((r, j) => (
                      <tr key={`${k}-r${j}`}>
                        {r.map((c, l) => (
                          <td key={`${k}-r${j}-${l}`}>{inline(c, `${k}-r${j}-${l}`)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            );
        }
        return null;
      })}
    </div>
  );
}

/** `/dashboard/docs/<name>`: the server's docs/<name>.md, rendered. */
export function DocsPage() {
  const { name = 'index' } = useParams();
  const page = useQuery({
    queryKey: ['docs', name],
    queryFn: async () => {
      const res = await fetch(`/docs/${encodeURIComponent(name)}.md`, {
        headers: { Accept: 'text/markdown' },
      });
      if (!res.ok) throw new Error(`There is no documentation page named "${name}" on this server.`);
      return res.text();
    },
    staleTime: 10 * 60_000,
  });
  const source = page.data ?? '';
  const title = /^#\s+(.*)$/m.exec(source)?.[1] ?? name;
  const body = source.replace(/^#\s+.*\n/, '');
  return (
    <>
      <h1>{title.replace(/[`*]/g, '')}</h1>
      <p className="muted small">
        From this server's documentation (<a href={`/docs/${name}.md`}>Markdown source</a>).
      </p>
      <ErrorAlert error={page.error} />
      {page.isPending && <p className="muted">Loading…</p>}
      {page.data !== undefined && (
        <article className="card">
          <Markdown source={body} />
        </article>
      )}
    </>
  );
}
