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
  const created = await server.deps.services.apiKeys.createKey(label);
  await server.deps.bench.models.upsert({
    id: `${label}-model`,
    name: `bench:${label.replace(/^bench-/, '')} model`,
    description: `Row used by the ${label} benchmark.`,
  });
  const available = server.deps.engine
    .dimensions()
    .find((d) => d.defaultMethod !== null && d.workflows.includes('bench'));
  if (!available) throw new Error('no dimension has an available method');
  const run = await server.deps.bench.runs.create(created.userId, {
    name: label,
    dimensions: [available.id],
    model_id: `${label}-model`,
  });
  return { apiKey: created.key, benchId: run.id };
}
