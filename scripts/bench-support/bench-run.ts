/**
 * The Bench run the API benchmarks read (`GET /api/v1/bench/{id}`): an API key, a catalogued
 * model and one run of one available dimension, made through the services. No runner serves the
 * model, so the run stays queued and the server does no other work while it is measured.
 */
import type { RunningServer } from '../../packages/server/src/roles/core.js';

export async function seedBenchRun(
  server: RunningServer,
  label: string,
): Promise<{ apiKey: string; benchId: string }> {
  const { ModelCatalog } = await import('../../packages/server/src/services/bench-discovery.js');
  const { BenchService } = await import('../../packages/server/src/services/bench-runs.js');
  const created = await server.deps.services.apiKeys.createKey(label);
  await new ModelCatalog({ db: server.deps.db }).upsert({
    id: `${label}-model`,
    name: `bench:${label.replace(/^bench-/, '')} model`,
    description: `Row used by the ${label} benchmark.`,
  });
  const bench = new BenchService({
    db: server.deps.db,
    blobs: server.deps.blobs,
    jobs: server.deps.jobs,
    dimensions: () => server.deps.engine.dimensions(),
  });
  const available = server.deps.engine
    .dimensions()
    .find((d) => d.defaultMethod !== null && d.workflows.includes('bench'));
  if (!available) throw new Error('no dimension has an available method');
  const run = await bench.create(created.userId, {
    name: label,
    dimensions: [available.id],
    model_id: `${label}-model`,
  });
  return { apiKey: created.key, benchId: run.id };
}
