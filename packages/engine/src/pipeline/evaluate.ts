/**
 * One clip's evaluation: probe → plan → one decode of the clip serving every requested output →
 * frames handed to the workers that run the methods (outputs spread over the pool) → scores.
 * Decoding and FFmpeg I/O stay on the calling thread; pixel work happens in the workers, so the
 * event loop stays responsive.
 */
import { stat } from 'node:fs/promises';
import { EngineError } from '../contract.js';
import type {
  DimensionFailure,
  DimensionId,
  DimensionInfo,
  DimensionScore,
  EngineLimits,
  EvaluateOptions,
  EvaluationResult,
  MethodId,
} from '../contract.js';
import type { Decoder } from '../decode/decoder.js';
import type { ProbedVideo } from '../decode/probe.js';
import { toVideoProbe } from '../decode/probe.js';
import {
  checkDecodedWork,
  checkDurationLimit,
  checkFileSize,
  checkFrameLimit,
  checkSizeLimits,
  clipBudgetMs,
} from '../decode/limits.js';
import { FrameBuffers } from '../decode/frame-buffers.js';
import { outputSize } from '../decode/size.js';
import type { CatalogOptions, MethodCatalog } from '../workers/catalog-types.js';
import type { WorkerJob, WorkerPool } from '../workers/pool.js';
import type { RunResult } from '../workers/protocol.js';
import { checkDimensions, planEvaluation } from './plan.js';
import type { EvaluationPlan, PlannedOutput } from './plan.js';
import { sampleIndices } from '../decode/sampling.js';
import type { ModelFiles } from '../inference/job.js';
import type { InferenceSettings } from '../inference/settings.js';

/** How the pipeline gets model files for model-backed methods (the model store answers). */
export interface ModelResolver {
  settings: InferenceSettings;
  /** Local files of a model, pulled first when needed; rejects with `model_unavailable`. */
  resolve(modelId: string, signal?: AbortSignal): Promise<ModelFiles>;
}

export interface PipelineDeps {
  decoder: Decoder;
  pool: WorkerPool;
  catalog: MethodCatalog;
  /** URL of the catalog module, imported by the workers. */
  catalogUrl: string;
  catalogOptions: CatalogOptions;
  models?: ModelResolver;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError('aborted', 'aborted');
}

interface ModelResolution {
  models: Record<string, ModelFiles>;
  /** Method overrides: dimensions whose default model-backed method fell back to a model-free one. */
  methods: Partial<Record<DimensionId, MethodId>>;
  /** Why a dimension fell back (its models could not be provided). */
  fallbacks: Map<DimensionId, { from: MethodId; reason: string }>;
  /** Models that could not be provided, by id → the store's message (naming the fixing command). */
  errors: Map<string, string>;
}

/**
 * Resolves the models of the model-backed methods the evaluation will use (each model once, pulled
 * on first use unless offline). When a dimension's *default* method cannot get its models and the
 * dimension has an available model-free method, the dimension falls back to it (the score records
 * why); a method the caller chose explicitly fails with `model_unavailable` instead.
 */
async function resolveModels(deps: PipelineDeps, options: EvaluateOptions): Promise<ModelResolution> {
  const out: ModelResolution = {
    models: {},
    methods: { ...options.methods },
    fallbacks: new Map(),
    errors: new Map(),
  };
  const wanted: Array<{
    dimension: DimensionId;
    method: MethodId;
    models: string[];
    explicit: boolean;
    info: DimensionInfo;
  }> = [];
  for (const dimension of checkDimensions(options.dimensions)) {
    const info = deps.catalog.getDimension(dimension, deps.catalogOptions);
    const explicit = options.methods?.[dimension];
    const method = explicit ?? info?.defaultMethod ?? null;
    const m = info?.methods.find((x) => x.id === method);
    if (!info || !m || !m.available || m.requires.models.length === 0) continue;
    // A dimension that will fail for a missing prompt or auxiliary info pulls nothing.
    if (m.requires.prompt && !options.prompt?.trim()) continue;
    if (m.requires.auxiliary.some((k) => !options.auxiliary?.[k]?.trim())) continue;
    wanted.push({
      dimension,
      method: m.id,
      models: m.requires.models,
      explicit: explicit !== undefined,
      info,
    });
  }
  const ids = [...new Set(wanted.flatMap((w) => w.models))];
  await Promise.all(
    ids.map(async (id) => {
      if (!deps.models) {
        out.errors.set(id, `model ${id} is needed but this engine has no model store`);
        return;
      }
      try {
        out.models[id] = await deps.models.resolve(id, options.signal);
      } catch (err) {
        if (err instanceof EngineError && err.code === 'aborted') throw err;
        out.errors.set(id, err instanceof Error ? err.message : String(err));
      }
    }),
  );
  throwIfAborted(options.signal);
  for (const w of wanted) {
    const missing = w.models.filter((id) => out.errors.has(id));
    if (missing.length === 0 || w.explicit) continue;
    const fallback = w.info.methods.find(
      (m) => m.available && m.requires.models.length === 0 && m.id !== w.method,
    );
    if (!fallback) continue;
    out.methods[w.dimension] = fallback.id;
    out.fallbacks.set(w.dimension, {
      from: w.method,
      reason: missing.map((id) => out.errors.get(id)).join('; '),
    });
  }
  return out;
}

/** Drops runs whose models could not be provided (recording `model_unavailable`) and unused outputs. */
function withoutUnresolved(
  plan: EvaluationPlan,
  resolution: ModelResolution,
  failures: DimensionFailure[],
): EvaluationPlan {
  const runs = plan.runs.filter((r) => {
    const needs = 'models' in r.method ? r.method.models : [];
    const missing = needs.filter((id) => !resolution.models[id]);
    if (missing.length === 0) return true;
    const detail = missing
      .map((id) => resolution.errors.get(id) ?? `model ${id} was not resolved`)
      .join('; ');
    failures.push({ dimension: r.dimension, code: 'model_unavailable', detail });
    return false;
  });
  const used = new Set(runs.map((r) => r.output));
  return { ...plan, runs, outputs: plan.outputs.filter((o) => used.has(o.id)) };
}

function fallbackDetails(f: { from: MethodId; reason: string } | undefined): Record<string, string> {
  return f ? { fallbackFrom: String(f.from), fallbackReason: f.reason } : {};
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
 * output goes to exactly one worker, so frames are still handed over, never copied. Outputs whose
 * runs share a model stay together: a worker runs a frame through a model once per job for every
 * dimension that needs it, and another worker would load the model again and repeat the work.
 */
function shardOutputs(plan: EvaluationPlan, probe: ProbedVideo, size: number): Shard[] {
  const units = outputsSharingModels(plan).map((ids) => ({
    ids,
    cost: ids.reduce((sum, id) => {
      const o = plan.outputs[id]!;
      const { width, height } = outputSize(probe.displayWidth, probe.displayHeight, o.maxSide);
      const frames = new Set(sampleIndices(o.sampling, probe.frameCount, probe.fps)).size;
      const runs = plan.runs.filter((r) => r.output === id).length;
      return sum + width * height * o.channels * frames * runs;
    }, 0),
  }));
  const shards: Shard[] = Array.from({ length: Math.max(1, Math.min(size, units.length)) }, () => ({
    outputs: new Set<number>(),
    cost: 0,
    job: null,
  }));
  for (const unit of units.sort((a, b) => b.cost - a.cost)) {
    const target = shards.reduce((best, s) => (s.cost < best.cost ? s : best));
    for (const id of unit.ids) target.outputs.add(id);
    target.cost += unit.cost;
  }
  return shards.filter((s) => s.outputs.size > 0);
}

/**
 * Outputs whose frame buffers may be reused once their worker has acknowledged them: those whose
 * every run is of a method that declares `releasesFrames`.
 */
export function recycledOutputs(plan: EvaluationPlan): Set<number> {
  const held = new Set(
    plan.runs
      .filter((r) => !('releasesFrames' in r.method && r.method.releasesFrames === true))
      .map((r) => r.output),
  );
  return new Set(plan.outputs.map((o) => o.id).filter((id) => !held.has(id)));
}

/** The plan's output ids grouped so that outputs read by runs of a common model share a group. */
export function outputsSharingModels(plan: EvaluationPlan): number[][] {
  const group = plan.outputs.map((o) => o.id);
  const root = (id: number): number => (group[id] === id ? id : (group[id] = root(group[id]!)));
  const firstOutputOf = new Map<string, number>();
  for (const run of plan.runs) {
    for (const model of 'models' in run.method ? run.method.models : []) {
      const first = firstOutputOf.get(model);
      if (first === undefined) firstOutputOf.set(model, run.output);
      else group[root(run.output)] = root(first);
    }
  }
  const groups = new Map<number, number[]>();
  for (const o of plan.outputs) {
    const r = root(o.id);
    groups.set(r, [...(groups.get(r) ?? []), o.id]);
  }
  return [...groups.values()];
}

/** Streams the clip's one decode into the shards' jobs; returns the time spent waiting for FFmpeg. */
async function decodeInto(
  deps: PipelineDeps,
  path: string,
  probe: ProbedVideo,
  outputs: PlannedOutput[],
  shards: Shard[],
  buffers: ReadonlyArray<FrameBuffers | undefined>,
  signal?: AbortSignal,
): Promise<number> {
  const iterator = deps.decoder.frames(path, probe, outputs, signal, buffers);
  let waitingMs = 0;
  try {
    for (;;) {
      const t0 = performance.now();
      const next = await iterator.next();
      waitingMs += performance.now() - t0;
      if (next.done) break;
      for (const shard of shards) {
        const frames = next.value.frames.filter((f) => shard.outputs.has(outputs[f.output]!.id));
        if (frames.length > 0)
          await shard.job!.send(
            frames.map((f) => ({ ...f, output: outputs[f.output]!.id })),
            signal,
          );
      }
    }
  } finally {
    await iterator.return(undefined);
  }
  return waitingMs;
}

/**
 * Resolves with `work`, or rejects with `aborted` as soon as `signal` fires (the work is then
 * abandoned; the caller cancels it).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new EngineError('aborted', 'aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new EngineError('aborted', 'aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * One clip's evaluation under its wall-clock budget (`clipBudgetMs`, counted from the end of the
 * probe): past it, the decode and the workers are stopped through the same signal an abort uses,
 * and the evaluation fails with `clip_budget_exceeded`. The caller's own abort stays `aborted`.
 */
export async function evaluateClip(
  deps: PipelineDeps,
  path: string,
  options: EvaluateOptions,
): Promise<EvaluationResult> {
  const started = performance.now();
  throwIfAborted(options.signal);
  const limits = deps.decoder.limits;
  const probe =
    options.probe !== undefined && keptByThisEngine(options.probe) && (await sameSize(path, options.probe))
      ? checkProbeLimits(options.probe, limits)
      : await deps.decoder.probe(path, options.signal);
  throwIfAborted(options.signal);
  const budgetMs = clipBudgetMs(probe.durationSeconds, limits);
  const budget = new AbortController();
  const forward = (): void => budget.abort();
  options.signal?.addEventListener('abort', forward, { once: true });
  let overBudget = false;
  const timer = setTimeout(() => {
    overBudget = true;
    budget.abort();
  }, budgetMs);
  try {
    return await evaluateProbed(deps, path, probe, { ...options, signal: budget.signal }, started);
  } catch (err) {
    if (overBudget && !(options.signal?.aborted ?? false)) {
      throw new EngineError(
        'clip_budget_exceeded',
        `scoring this clip took longer than its wall-clock budget of ${Math.round(budgetMs / 1000)} s (${limits.clipBudgetBaseSeconds} s + ${limits.clipBudgetSecondsPerClipSecond} s per second of its ${probe.durationSeconds.toFixed(1)} s); an operator can raise it with VESTA_CLIP_BUDGET_BASE_SECONDS and VESTA_CLIP_BUDGET_SECONDS_PER_CLIP_SECOND`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', forward);
  }
}

/**
 * True when a kept probe has every field this engine's probe has: one kept by an earlier engine
 * (before `fpsAssumed`, when a GIF without frame delays read as 100 fps) is taken again.
 */
function keptByThisEngine(probe: ProbedVideo): boolean {
  return typeof (probe as Partial<ProbedVideo>).fpsAssumed === 'boolean';
}

/** True when the file still has the size the given probe saw (else it is probed again). */
async function sameSize(path: string, probe: ProbedVideo): Promise<boolean> {
  try {
    return (await stat(path)).size === probe.sizeBytes;
  } catch {
    return false;
  }
}

/** A kept probe meets this engine's limits (they may have changed since it was taken). */
function checkProbeLimits(probe: ProbedVideo, limits: EngineLimits): ProbedVideo {
  checkFileSize(probe.sizeBytes, limits);
  checkSizeLimits(probe.width, probe.height, limits);
  checkDurationLimit(probe, limits);
  checkFrameLimit(probe.frameCount, limits);
  checkDecodedWork(probe.width, probe.height, probe.frameCount, limits);
  return probe;
}

async function evaluateProbed(
  deps: PipelineDeps,
  path: string,
  probe: ProbedVideo,
  options: EvaluateOptions & { signal: AbortSignal },
  started: number,
): Promise<EvaluationResult> {
  const { signal } = options;
  const resolution = await resolveModels(deps, options);
  const models = resolution.models;
  const planned = planEvaluation(
    toVideoProbe(probe),
    { ...options, methods: resolution.methods },
    deps.catalog,
    deps.catalogOptions,
  );
  const failures: DimensionFailure[] = [...planned.failures];
  const plan = withoutUnresolved(planned, resolution, failures);
  const scores: DimensionScore[] = [];
  let decodeMs = 0;

  if (plan.runs.length > 0) {
    const context = {
      probe: toVideoProbe(probe),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(options.auxiliary !== undefined ? { auxiliary: options.auxiliary } : {}),
      ...(Object.keys(models).length > 0 ? { models } : {}),
    };
    const shards = shardOutputs(plan, probe, deps.pool.size);
    // Frame buffers of the outputs whose runs all release frames are decoded into again once
    // their worker is done with them.
    const frameBuffers = new FrameBuffers();
    const recycled = recycledOutputs(plan);
    const buffers = plan.outputs.map((o) => (recycled.has(o.id) ? frameBuffers : undefined));
    let results: RunResult[];
    try {
      for (const shard of shards) {
        const runs = plan.runs.filter((r) => shard.outputs.has(r.output));
        shard.job = deps.pool.start(
          deps.catalogUrl,
          runs.map((r) => ({ run: r.run, dimension: r.dimension, method: r.method.id, output: r.output })),
          context,
          Object.keys(models).length > 0 ? deps.models?.settings : undefined,
          { outputs: recycled, sink: frameBuffers },
        );
      }
      decodeMs = await decodeInto(deps, path, probe, plan.outputs, shards, buffers, signal);
      throwIfAborted(signal);
      results = (await untilAborted(Promise.all(shards.map((s) => s.job!.finish())), signal)).flat();
    } catch (err) {
      for (const s of shards) s.job?.cancel();
      throw err;
    }
    for (const result of results) {
      const run = plan.runs.find((r) => r.run === result.run)!;
      const { dimension, method, request } = run;
      if (!result.ok) {
        failures.push({ dimension, code: result.code, detail: result.detail });
        continue;
      }
      const { outcome } = result;
      if (typeof outcome.value !== 'number' || !Number.isFinite(outcome.value)) {
        failures.push({
          dimension,
          code: 'decode_failed',
          detail: `${dimension} (${method.id}) produced no finite value`,
        });
        continue;
      }
      const size = outputSize(probe.displayWidth, probe.displayHeight, request.maxSide);
      scores.push({
        dimension,
        value: outcome.value,
        method: method.id,
        methodVersion: method.version,
        frames: {
          count: outcome.indices.length,
          sampling: request.sampling,
          width: size.width,
          height: size.height,
          indices: outcome.indices,
          fps: probe.fps,
          fpsAssumed: probe.fpsAssumed,
        },
        models: outcome.models ?? [],
        ...(outcome.details || resolution.fallbacks.has(dimension)
          ? { details: { ...outcome.details, ...fallbackDetails(resolution.fallbacks.get(dimension)) } }
          : {}),
        elapsedMs: result.elapsedMs,
      });
    }
  }
  const order = new Map(options.dimensions.map((d, i) => [d, i]));
  scores.sort((a, b) => (order.get(a.dimension) ?? 0) - (order.get(b.dimension) ?? 0));
  failures.sort((a, b) => (order.get(a.dimension) ?? 0) - (order.get(b.dimension) ?? 0));
  return { probe: toVideoProbe(probe), scores, failures, elapsedMs: performance.now() - started, decodeMs };
}
