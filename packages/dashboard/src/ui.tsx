/** Markup every page shares: the error alert and the data table (header row, body, empty note). */
import { useLayoutEffect, useRef } from 'react';
import type { ReactNode } from 'react';
import { describeError, formatScore, sentence } from './api';

/**
 * An error in words (`role="alert"`), or nothing when there is none: an API error shows its
 * detail as a sentence with its catalogue code beside it, an `{ code, detail }` record (a clip's or
 * a run's error) the same, a string as is. `context` says what failed ("Could not upload x.mp4").
 * Always text, never HTML.
 */
export function ErrorAlert({ error, context }: { error: unknown; context?: string }) {
  if (error === null || error === undefined || error === false || error === '') return null;
  const { text, code } =
    typeof error === 'string'
      ? { text: error, code: null }
      : isCodedError(error)
        ? { text: sentence(error.detail), code: error.code }
        : describeError(error);
  return (
    <p role="alert" className="error">
      {context
        ? `${context}: ${/^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text}`
        : text}
      {code && (
        <>
          {' '}
          <span className="error-code">({code})</span>
        </>
      )}
    </p>
  );
}

function isCodedError(e: unknown): e is { code: string; detail: string } {
  return (
    typeof e === 'object' &&
    e !== null &&
    !(e instanceof Error) &&
    typeof (e as { code?: unknown }).code === 'string' &&
    typeof (e as { detail?: unknown }).detail === 'string'
  );
}

/**
 * Names each body cell of `table` by its column's head (`data-label`, shown before the cell on a
 * phone), worked out on the rendered table so that cells a component renders count too. A head
 * with only screen-reader words gives no label; a cell given a `data-label` by its page keeps it.
 */
function labelCells(table: HTMLTableElement): void {
  const heads = Array.from(table.tHead?.rows[0]?.cells ?? []).map((th) => {
    const hidden = th.querySelector('.sr-only');
    return hidden && hidden.textContent === th.textContent ? '' : (th.textContent ?? '').trim();
  });
  for (const body of Array.from(table.tBodies))
    for (const row of Array.from(body.rows))
      Array.from(row.cells).forEach((cell, i) => {
        if (cell.hasAttribute('data-label') && cell.dataset.auto !== '1') return;
        cell.dataset.label = heads[i] ?? '';
        cell.dataset.auto = '1';
      });
}

/**
 * A table with one header row (`scope="col"`), the rows given as children, and a muted note in
 * place of rows when `empty` is set and there are none. Wider than its card (a phone), it scrolls
 * sideways inside a focusable region named `label`, never the page; with `cards`, on a phone each
 * row becomes a block instead, each cell named by its column's head.
 */
export function DataTable(props: {
  headers: ReactNode[];
  children: ReactNode;
  /** Shown under the header when `rows` is 0. */
  empty?: ReactNode;
  rows?: number;
  testId?: string;
  className?: string;
  /** The scroll region's accessible name (what the table lists). */
  label?: string;
  /** Set when the caller already wraps the table in a scroll region. */
  bare?: boolean;
  /** On a phone, one block per row rather than a table that scrolls sideways (lists, not matrices). */
  cards?: boolean;
}) {
  const { headers, children, empty, rows, testId, className, label, bare, cards } = props;
  const classes = [className, cards ? 'cards' : null].filter(Boolean).join(' ') || undefined;
  const ref = useRef<HTMLTableElement>(null);
  // After every render: rows come and go with the data.
  useLayoutEffect(() => {
    if (cards && ref.current) labelCells(ref.current);
  });
  const table = (
    <table ref={ref} data-testid={testId} className={classes}>
      <thead>
        <tr>
          {headers.map((h, i) => (
            <th scope="col" key={typeof h === 'string' && h !== '' ? `${i}-${h}` : `col-${i}`}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
  return (
    <>
      {bare ? (
        table
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={label ?? 'Table'}>
          {table}
        </div>
      )}
      {empty !== undefined && rows === 0 && <p className="muted">{empty}</p>}
    </>
  );
}

/** The words for a state the API names (clips, Bench runs and their clips, runners). */
const STATE_WORDS: Record<string, string> = {
  awaiting_upload: 'waiting for upload',
  uploaded: 'checking',
  queued: 'queued',
  scoring: 'scoring',
  scored: 'scored',
  failed: 'failed',
  generating: 'generating',
  evaluating: 'evaluating',
  completed: 'completed',
  cancelled: 'cancelled',
  pending: 'waiting for a runner',
  claimed: 'generating',
  done: 'done',
  online: 'online',
  offline: 'offline',
};

/** A state in words: the known ones from the table, any other with its underscores as spaces. */
export function stateWords(state: string): string {
  return STATE_WORDS[state] ?? state.replace(/_/g, ' ');
}

/** A state as a coloured pill (`state-<name>` picks the colour); `label` replaces the words. */
export function StateBadge({ state, label }: { state: string; label?: string }) {
  return <span className={`state state-${state}`}>{label ?? stateWords(state)}</span>;
}

/**
 * Per-dimension scores of several subjects side by side: one row per dimension, one column per
 * subject (a Rank candidate, a Bench run), the best value of a row in bold. Rows rather than
 * columns for dimensions, so that all 16 fit the page and the table scrolls only with many
 * subjects.
 */
export function ScoreMatrix(props: {
  label: string;
  testId?: string;
  dimensions: Array<{ id: string; name: string }>;
  columns: Array<{ key: string; label: ReactNode; values: ReadonlyMap<string, number> }>;
}) {
  const { label, testId, dimensions, columns } = props;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <DataTable
        bare
        testId={testId}
        className="scores matrix"
        headers={['Dimension', ...columns.map((c) => c.label)]}
      >
        {dimensions.map((d) => {
          const values = columns.map((c) => c.values.get(d.id));
          const present = values.filter((v): v is number => v !== undefined);
          const best = columns.length > 1 && present.length > 1 ? Math.max(...present) : null;
          return (
            <tr key={d.id}>
              <th scope="row">{d.name}</th>
              {values.map((v, i) => (
                <td key={columns[i]!.key} className="num">
                  {v !== undefined && v === best ? <strong>{formatScore(v)}</strong> : formatScore(v)}
                </td>
              ))}
            </tr>
          );
        })}
      </DataTable>
    </div>
  );
}

/** Scores that read nothing of the prompt (their models are not on the server): said beside them. */
export function PromptNotice({ notice }: { notice: { detail: string; command: string } | null | undefined }) {
  if (!notice) return null;
  const [before] = notice.detail.split(' — ');
  return (
    <p className="notice" role="note" data-testid="prompt-notice">
      <strong>Note:</strong> {before} — run <code>{notice.command}</code> on the server.
    </p>
  );
}

/**
 * Dimensions the user asked for that could not be scored on this server (its models are missing,
 * or its clips' scoring failed), each with why and the command that fixes it.
 */
export function UnscoredNotice({
  unscored,
}: {
  unscored: ReadonlyArray<{ dimension: string; detail: string; command: string | null }>;
}) {
  if (unscored.length === 0) return null;
  return (
    <div className="notice" role="note" data-testid="unscored-notice">
      <strong>Not scored:</strong>
      <ul>
        {unscored.map((u) => {
          const [before] = u.detail.split(' — ');
          return (
            <li key={u.dimension}>
              {before}
              {u.command !== null && (
                <>
                  {' '}
                  — run <code>{u.command}</code> on the server.
                </>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/**
 * The demo runner's command for the server this page came from: the CLI talks to
 * http://localhost:8080 unless told otherwise, so any other address is named with VESTA_BASE_URL.
 */
export function demoRunnerCommand(origin: string = window.location.origin): string {
  const url = new URL(origin);
  const isDefault =
    url.protocol === 'http:' && url.port === '8080' && ['localhost', '127.0.0.1'].includes(url.hostname);
  return `${isDefault ? '' : `VESTA_BASE_URL=${url.origin} `}VESTA_API_KEY=<your key> npx vesta runner start --demo`;
}
