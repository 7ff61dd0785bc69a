/**
 * RFC 4180 CSV: comma separated, CRLF line ends, a field is quoted when it holds a comma, a quote,
 * CR or LF (quotes doubled inside). A field that starts with `=`, `+`, `-` or `@` and is not a
 * number is prefixed with `'` so spreadsheet programs do not evaluate it as a formula.
 */
export type CsvCell = string | number | null;

const NUMERIC = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

function cellText(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw new RangeError(`CSV cell is not a finite number: ${cell}`);
    return String(cell);
  }
  if (/^[=+\-@]/.test(cell) && !NUMERIC.test(cell)) return `'${cell}`;
  return cell;
}

export function csvField(cell: CsvCell): string {
  const text = cellText(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) {
    if (row.length !== header.length) {
      throw new RangeError(`CSV row has ${row.length} cells, header has ${header.length}`);
    }
    lines.push(row.map(csvField).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
