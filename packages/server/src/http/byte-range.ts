/**
 * The `Range` request header (RFC 9110 §14) for one byte range of an object of known size. Only
 * the `bytes` unit and a single range are served as 206; a header the server does not understand
 * (another unit, a malformed value, several ranges) is ignored and the whole object is sent, as
 * the RFC allows. A well-formed range that starts past the end is unsatisfiable (416).
 */
export type RangeAnswer =
  { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i;

export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const m = SINGLE.exec(header.trim());
  if (!m) return { kind: 'whole' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // A suffix: the last N bytes.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return { kind: 'whole' };
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { kind: 'whole' };
  if (last !== '' && end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}
