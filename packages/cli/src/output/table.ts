/** Plain-text tables and key/value blocks for the human output. */
import { visibleLength, type Style } from './style.js';

export type Cell = string | number | boolean | null | undefined;

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(4);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  return JSON.stringify(value);
}

/** A table with a bold header row and columns padded to their widest cell. */
export function renderTable(headers: string[], rows: Cell[][], style: Style): string {
  const text = rows.map((row) => row.map(cellText));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => visibleLength(r[i] ?? ''))));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - visibleLength(c))))
      .join('  ')
      .trimEnd();
  const out = [style.bold(line(headers.map((h) => h.toUpperCase())))];
  for (const r of text) out.push(line(r));
  if (rows.length === 0) out.push(style.dim('(none)'));
  return out.join('\n');
}

/** `key  value` lines for one object; nested objects and arrays are shown as compact JSON. */
export function renderFields(obj: Record<string, unknown>, style: Style, skip: string[] = []): string {
  // A field without a value (e.g. `error` of a healthy run) is left out rather than shown blank.
  const keys = Object.keys(obj).filter((k) => !skip.includes(k) && obj[k] !== null && obj[k] !== undefined);
  const width = Math.max(0, ...keys.map((k) => k.length));
  return keys.map((k) => `${style.dim(k.padEnd(width))}  ${cellText(obj[k])}`).join('\n');
}
