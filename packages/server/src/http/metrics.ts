/**
 * Prometheus metrics for one app instance (its own registry; no global state): request count and
 * duration by operationId, method, status and X-Service-Source. The counter and histogram children
 * of each label set are bound once and kept (prom-client otherwise hashes the label object on
 * every call); the label sets are few (operations × methods × statuses × sources).
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  observe(
    labels: { operation: string; method: string; status: number; source: string },
    seconds: number,
  ): void;
}

const MAX_BOUND_LABEL_SETS = 5000;

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
  interface Bound {
    count: () => void;
    observe: (seconds: number) => void;
  }
  const bound = new Map<string, Bound>();
  return {
    registry,
    observe(labels, seconds) {
      const id = `${labels.operation} ${labels.method} ${labels.status} ${labels.source}`;
      let children = bound.get(id);
      if (children === undefined) {
        const l = { ...labels, status: String(labels.status) };
        const counter = requests.labels(l);
        const histogram = duration.labels(l);
        children = { count: () => counter.inc(), observe: (s) => histogram.observe(s) };
        // Sources are caller-chosen labels: never let the bound children grow without limit.
        if (bound.size >= MAX_BOUND_LABEL_SETS) bound.clear();
        bound.set(id, children);
      }
      children.count();
      children.observe(seconds);
    },
  };
}
