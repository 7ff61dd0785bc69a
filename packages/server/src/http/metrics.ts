/**
 * Prometheus metrics for one app instance (its own registry; no global state): request count and
 * duration by operationId, method, status and X-Service-Source; the job queue's depth, runs and
 * failures.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobQueueStats } from '../ports/job-queue.js';

export interface HttpMetrics {
  registry: Registry;
  observe(
    labels: { operation: string; method: string; status: number; source: string },
    seconds: number,
  ): void;
}

export function createHttpMetrics(options: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'vesta_' });
  const labelNames = ['operation', 'method', 'status', 'source'] as const;
  const requests = new Counter({
    name: 'vesta_http_requests_total',
    help: 'HTTP requests by operation, status and caller source',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'vesta_http_request_duration_seconds',
    help: 'HTTP request duration by operation, status and caller source',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    observe(labels, seconds) {
      const l = { ...labels, status: String(labels.status) };
      requests.inc(l);
      duration.observe(l, seconds);
    },
  };
}

/**
 * The job queue's figures on a registry, read when /metrics is scraped: queue depth by type and
 * state (the whole deployment's), and this process's finished runs by type and outcome with their
 * total duration (a failure is outcome `failed`; mean duration = seconds / runs).
 */
export function registerJobQueueMetrics(
  registry: Registry,
  queue: { stats(): Promise<JobQueueStats> },
): void {
  let last: Promise<JobQueueStats> | null = null;
  // One stats read per scrape, shared by the metrics below.
  const read = (): Promise<JobQueueStats> => {
    last ??= queue.stats().finally(() => setTimeout(() => (last = null), 0));
    return last;
  };
  new Gauge({
    name: 'vesta_jobs',
    help: 'Jobs in the queue by type and state',
    labelNames: ['type', 'state'] as const,
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const d of s.depth) this.set({ type: d.type, state: d.state }, d.count);
    },
  });
  new Counter({
    name: 'vesta_job_runs_total',
    help: 'Job runs this process finished, by type and outcome (succeeded, retried, deferred, failed, cancelled, interrupted)',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const r of s.runs) this.inc({ type: r.type, outcome: r.outcome }, r.count);
    },
  });
  new Counter({
    name: 'vesta_job_run_seconds_total',
    help: 'Total duration of the job runs this process finished, by type and outcome',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const r of s.runs) this.inc({ type: r.type, outcome: r.outcome }, r.seconds);
    },
  });
  new Counter({
    name: 'vesta_job_failures_total',
    help: 'Jobs that failed for good in this process, by type',
    labelNames: ['type'] as const,
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const r of s.runs) if (r.outcome === 'failed') this.inc({ type: r.type }, r.count);
    },
  });
}
