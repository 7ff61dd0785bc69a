/**
 * Runs the readiness checks (/readyz, and once at start for the log): each dependency `ok`, or
 * `unavailable` with the cause in words — e.g. which bucket is missing — so that an operator reads
 * what to fix instead of an SDK's bare error name.
 */
import type { ReadinessCheck } from './app-deps.js';

export interface ReadinessFailure {
  name: string;
  /** The cause, one line (credentials in URLs redacted). */
  reason: string;
  error: unknown;
}

export interface ReadinessReport {
  checks: Record<string, 'ok' | 'unavailable'>;
  failures: ReadinessFailure[];
}

export async function checkReadiness(checks: readonly ReadinessCheck[]): Promise<ReadinessReport> {
  const report: ReadinessReport = { checks: {}, failures: [] };
  for (const c of checks) {
    try {
      await c.check();
      report.checks[c.name] = 'ok';
    } catch (error) {
      report.checks[c.name] = 'unavailable';
      report.failures.push({ name: c.name, reason: reasonOf(error), error });
    }
  }
  return report;
}

/** `blobs unavailable (bucket "x" … does not exist: …); queue unavailable (…)`. */
export function describeFailures(failures: readonly ReadinessFailure[]): string {
  return failures.map((f) => `${f.name} unavailable (${f.reason})`).join('; ');
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  const line = (text.split('\n')[0] ?? '').replace(/\/\/[^/@\s]*@/g, '//');
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
