/**
 * Prometheus metrics for one app instance (its own registry; no global state): request count and
 * duration by operationId, method, status and X-Service-Source.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
