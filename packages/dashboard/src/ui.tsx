/** Markup every page shares: the error alert and the data table (header row, body, empty note). */
import { Children, cloneElement, isValidElement } from 'react';
import type { ReactElement, ReactNode } from 'react';
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

/** A column head's words, for a cell's label on a phone ('' for a head with no words of its own). */
function headText(h: ReactNode): string {
  return typeof h === 'string' || typeof h === 'number' ? String(h) : '';
}

type CellProps = { 'data-label'?: string; children?: ReactNode };

/** Each cell of each row labelled with its column's head (`data-label`), unless it has one. */
function labelCells(children: ReactNode, heads: string[]): ReactNode {
  return Children.map(children, (row) => {
    if (!isValidElement<{ children?: ReactNode }>(row) || row.type !== 'tr') return row;
    const cells = Children.toArray(row.props.children).map((cell, i) =>
      isValidElement<CellProps>(cell) && cell.props['data-label'] === undefined
        ? cloneElement(cell as ReactElement<CellProps>, { 'data-label': heads[i] ?? '' })
        : cell,
    );
    return cloneElement(row, {}, cells);
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
  const table = (
    <table data-testid={testId} className={classes}>
      <thead>
        <tr>
          {headers.map((h, i) => (
            <th scope="col" key={typeof h === 'string' && h !== '' ? `${i}-${h}` : `col-${i}`}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{cards ? labelCells(children, headers.map(headText)) : children}</tbody>
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
