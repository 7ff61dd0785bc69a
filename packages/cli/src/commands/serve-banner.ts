/**
 * The few human lines `vesta serve` prints when it runs in a terminal: where to open the browser,
 * whether first-run setup is still open, where the data lives. The logs stay JSON on stdout (for
 * machines); this goes to stderr and only when stderr is a terminal, so a service manager or a
 * log collector never sees it.
 */
import type { ServerConfig } from '@vesta/server';

export interface BannerFacts {
  role: ServerConfig['role'];
  /** VESTA_PUBLIC_URL, or http://localhost:PORT. */
  publicUrl: string;
  dataDir: string;
  postgres: boolean;
  s3Bucket: string | null;
  /** Whether no admin account exists yet (null: not known, e.g. a worker). */
  setupRequired: boolean | null;
}

export function startBanner(f: BannerFacts): string {
  const base = f.publicUrl.replace(/\/+$/, '');
  const database = f.postgres ? 'PostgreSQL (VESTA_DATABASE_URL)' : `SQLite in ${f.dataDir}`;
  const clips = f.s3Bucket !== null ? `S3 bucket ${f.s3Bucket}` : `${f.dataDir}/blobs`;
  const lines: string[] = [''];
  if (f.role === 'worker') {
    lines.push(`  Vesta worker is running: it scores clips queued in ${database}.`);
    lines.push(`  Health: ${base}/healthz · readiness: ${base}/readyz · metrics: ${base}/metrics`);
  } else {
    lines.push(`  Vesta is running. Open ${base}/ in a browser.`);
    lines.push(
      f.setupRequired === true
        ? '  First visit: it asks for the admin account (email and password); then make an API key under "API keys".'
        : '  Sign in there; API keys are made and revoked under "API keys".',
    );
    lines.push(`  API: ${base}/api/v1 · docs for agents: ${base}/llms.txt`);
    lines.push(`  Data: ${database}; clips: ${clips}.`);
  }
  lines.push('  Stop with Ctrl-C (in-flight work finishes or resumes at the next start).', '');
  return lines.join('\n');
}
