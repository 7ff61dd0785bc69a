/** Markup every page shares: the error alert and the data table (header row, body, empty note). */
import type { ReactNode } from 'react';
import { errorText } from './api';

/**
 * An error in words (`role="alert"`), or nothing when there is none: an API error shows its
 * detail and code, an `{ code, detail }` record (a clip's or a run's error) the same, a string as
 * is. Always text, never HTML.
 */
export function ErrorAlert({ error }: { error: unknown }) {
  if (error === null || error === undefined || error === false || error === '') return null;
  const text =
    typeof error === 'string'
      ? error
      : isCodedError(error)
        ? `${error.detail} (${error.code})`
        : errorText(error);
  return (
    <p role="alert" className="error">
      {text}
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
 * A table with one header row (`scope="col"`), the rows given as children, and a muted note in
 * place of rows when `empty` is set and there are none.
 */
export function DataTable(props: {
  headers: ReactNode[];
  children: ReactNode;
  /** Shown under the header when `rows` is 0. */
  empty?: ReactNode;
  rows?: number;
  testId?: string;
  className?: string;
}) {
  const { headers, children, empty, rows, testId, className } = props;
  return (
    <>
      <table data-testid={testId} className={className}>
        <thead>
          <tr>
            {headers.map((h, i) => (
              <th scope="col" key={typeof h === 'string' && h !== '' ? h : `col-${i}`}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {empty !== undefined && rows === 0 && <p className="muted">{empty}</p>}
    </>
  );
}
