/**
 * One clip's evaluation: probe → plan → one decode of the clip serving every requested output →
 * frames transferred to the workers that run the methods (outputs spread over the pool) → scores.
 * Decoding and FFmpeg I/O stay on the calling thread; pixel work happens in the workers, so the
 * event loop stays responsive.
 */
import { EngineError } from '../contract.js';
import type { DimensionFailure, DimensionScore, EvaluateOptions, EvaluationResult } from '../contract.js';
import type { Decoder } from '../decode/decoder.js';
import type { ProbedVideo } from '../decode/probe.js';
import { toVideoProbe } from '../decode/probe.js';
import { outputSize } from '../decode/size.js';
import type { CatalogOptions, MethodCatalog } from '../workers/catalog-types.js';
import type { WorkerJob, WorkerPool } from '../workers/pool.js';
import type { RunResult } from '../workers/protocol.js';
import { planEvaluation } from './plan.js';
import type { EvaluationPlan, PlannedOutput } from './plan.js';
import { sampleIndices } from '../decode/sampling.js';

export interface PipelineDeps {
  decoder: Decoder;
  pool: WorkerPool;
  catalog: MethodCatalog;
  /** URL of the catalog module, imported by the workers. */
  catalogUrl: string;
  catalogOptions: CatalogOptions;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError('aborted', 'aborted');
}

/** A share of the evaluation's outputs (and their runs) handled by one worker. */
interface Shard {
  outputs: Set<number>;
  cost: number;
  job: WorkerJob | null;
}

/**
 * Spreads outputs over up to `size` workers, heaviest first onto the lightest shard. Cost is a
 * proxy for method work: bytes per frame × frames × runs reading the output. Every frame of an
 * output goes to exactly one worker, so frames are still transferred, never copied.
 */
function shardOutputs(plan: EvaluationPlan, probe: ProbedVideo, size: number): Shard[] {
  const costs = plan.outputs.map((o) => {
    const { width, height } = outputSize(probe.displayWidth, probe.displayHeight, o.maxSide);
    const frames = new Set(sampleIndices(o.sampling, probe.frameCount, probe.fps)).size;
    const runs = plan.runs.filter((r) => r.output === o.id).length;
    return { id: o.id, cost: width * height * o.channels * frames * runs };
  });
  const shards: Shard[] = Array.from({ length: Math.max(1, Math.min(size, plan.outputs.length)) }, () => ({ outputs: new Set<number>(), cost: 0, job: null }));
  for (const c of costs.sort((a, b) => b.cost - a.cost)) {
    const target = shards.reduce((best, s) => (s.cost < best.cost ? s : best));
    target.outputs.add(c.id);
    target.cost += c.cost;
  }
  return shards.filter((s) => s.outputs.size > 0);
}

/** Streams the clip's one decode into the shards' jobs; returns the time spent waiting for FFmpeg. */
async function decodeInto(deps: PipelineDeps, path: string, probe: ProbedVideo, outputs: PlannedOutput[], shards: Shard[], signal?: AbortSignal): Promise<number> {
  const iterator = deps.decoder.frames(path, probe, outputs, signal);
  let waitingMs = 0;
  try {
    for (;;) {
      const t0 = performance.now();
      const next = await iterator.next();
      waitingMs += performance.now() - t0;
      if (next.done) break;
      for (const shard of shards) {
        const frames = next.value.frames.filter((f) => shard.outputs.has(outputs[f.output]!.id));
        if (frames.length > 0) await shard.job!.send(frames.map((f) => ({ ...f, output: outputs[f.output]!.id })), signal);
      }
    }
  } finally {
    await iterator.return(undefined);
  }
  return waitingMs;
}

export async function evaluateClip(deps: PipelineDeps, path: string, options: EvaluateOptions): Promise<EvaluationResult> {
  const started = performance.now();
  const { signal } = options;
  throwIfAborted(signal);
  const probe = await deps.decoder.probe(path, signal);
  throwIfAborted(signal);
  const plan = planEvaluation(toVideoProbe(probe), options, deps.catalog, deps.catalogOptions);
  const failures: DimensionFailure[] = [...plan.failures];
  const scores: DimensionScore[] = [];
  let decodeMs = 0;

  if (plan.runs.length > 0) {
    const context = {
      probe: toVideoProbe(probe),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(options.auxiliary !== undefined ? { auxiliary: options.auxiliary } : {}),
    };
    const shards = shardOutputs(plan, probe, deps.pool.size);
    let results: RunResult[];
    try {
      for (const shard of shards) {
        const runs = plan.runs.filter((r) => shard.outputs.has(r.output));
        shard.job = deps.pool.start(
          deps.catalogUrl,
          runs.map((r) => ({ run: r.run, dimension: r.dimension, method: r.method.id, output: r.output })),
          context,
        );
      }
      decodeMs = await decodeInto(deps, path, probe, plan.outputs, shards, signal);
      throwIfAborted(signal);
      results = (await Promise.all(shards.map((s) => s.job!.finish()))).flat();
    } catch (err) {
      for (const s of shards) s.job?.cancel();
      throw err;
    }
    for (const result of results) {
      const planned = plan.runs[result.run]!;
      const { dimension, method, request } = planned;
      if (!result.ok) {
        failures.push({ dimension, code: result.code, detail: result.detail });
        continue;
      }
      const { outcome } = result;
      if (typeof outcome.value !== 'number' || !Number.isFinite(outcome.value)) {
        failures.push({ dimension, code: 'decode_failed', detail: `${dimension} (${method.id}) produced no finite value` });
        continue;
      }
      const size = outputSize(probe.displayWidth, probe.displayHeight, request.maxSide);
      scores.push({
        dimension,
        value: outcome.value,
        method: method.id,
        methodVersion: method.version,
        frames: { count: outcome.indices.length, sampling: request.sampling, width: size.width, height: size.height, indices: outcome.indices },
        models: outcome.models ?? [],
        ...(outcome.details ? { details: outcome.details } : {}),
        elapsedMs: result.elapsedMs,
      });
    }
  }
  const order = new Map(options.dimensions.map((d, i) => [d, i]));
  scores.sort((a, b) => (order.get(a.dimension) ?? 0) - (order.get(b.dimension) ?? 0));
  failures.sort((a, b) => (order.get(a.dimension) ?? 0) - (order.get(b.dimension) ?? 0));
  return { probe: toVideoProbe(probe), scores, failures, elapsedMs: performance.now() - started, decodeMs };
}
