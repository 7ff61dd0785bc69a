/** One section of `npm run bench:distributed`: measures something and returns Markdown. */
export interface BenchSection {
  /** Short name (select sections with BENCH_SECTIONS=name,name). */
  name: string;
  /** What it measures, one line (printed before it runs). */
  title: string;
  run(): Promise<string>;
}

/** The PostgreSQL server the sections use (each in a schema of its own). */
export const BENCH_PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const ms = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : '—');
