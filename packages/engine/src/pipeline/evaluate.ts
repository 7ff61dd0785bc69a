/**
 * One clip's evaluation: probe → plan → one decode per sampling → frames transferred to one
 * worker that runs every method → scores. Decoding and FFmpeg I/O stay on the calling thread;
 * pixel work happens in the worker, so the event loop stays responsive.
 */
import { EngineError } from '../contract.js';
import type { DimensionFailure, DimensionScore, EvaluateOptions, EvaluationResult, Frame } from '../contract.js';
import type { Decoder } from '../decode/decoder.js';
import type { ProbedVideo } from '../decode/probe.js';
import { toVideoProbe } from '../decode/probe.js';
import { sampleIndices } from '../decode/sampling.js';
import { outputSize } from '../decode/size.js';
import type { CatalogOptions, MethodCatalog } from '../workers/catalog-types.js';
import type { WorkerJob, WorkerPool } from '../workers/pool.js';
import type { RunResult } from '../workers/protocol.js';
import { planEvaluation } from './plan.js';
import type { DecodeGroup } from './plan.js';

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

/** How many times each delivered index is pushed: VBench's uniform sampler repeats the last index of short clips. */
function repeatCounts(group: DecodeGroup, probe: ProbedVideo): Map<number, number> {
  const counts = new Map<number, number>();
  for (const i of sampleIndices(group.sampling, probe.frameCount, probe.fps)) counts.set(i, (counts.get(i) ?? 0) + 1);
  return counts;
}

/** Streams one decode group into the job; returns the time spent waiting for FFmpeg. */
async function decodeGroup(deps: PipelineDeps, path: string, probe: ProbedVideo, group: DecodeGroup, job: WorkerJob, signal?: AbortSignal): Promise<number> {
  const repeats = repeatCounts(group, probe);
  const iterator = deps.decoder.frames(path, probe, group.sampling, group.outputs.map((o) => ({ maxSide: o.maxSide, channels: o.channels })), signal);
  let waitingMs = 0;
  try {
    for (;;) {
      const t0 = performance.now();
      const next = await iterator.next();
      waitingMs += performance.now() - t0;
      if (next.done) break;
      const frames: Array<{ output: number; frame: Frame }> = next.value.frames.map((frame, i) => ({ output: group.outputs[i]!.id, frame }));
      await job.send(frames, repeats.get(next.value.index) ?? 1, signal);
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
    const job = deps.pool.start(
      deps.catalogUrl,
      plan.runs.map((r) => ({ run: r.run, dimension: r.dimension, method: r.method.id, output: r.output })),
      context,
    );
    let results: RunResult[];
    try {
      for (const group of plan.groups) decodeMs += await decodeGroup(deps, path, probe, group, job, signal);
      throwIfAborted(signal);
      results = await job.finish();
    } catch (err) {
      job.cancel();
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
