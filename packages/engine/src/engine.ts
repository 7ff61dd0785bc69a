/**
 * The engine's composition root: `createEngine(options)` wires the decoder (FFmpeg shipped
 * through npm), a worker-thread pool and the method catalog. No module-level state: every engine
 * owns its workers; `close()` stops them.
 */
import { access, constants } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { ClipProbe, Engine, EngineOptions, EvaluateOptions, EvaluationResult } from './contract.js';
import * as defaultCatalog from './catalog.js';
import { defaultFfmpegPath, defaultFfprobePath } from './decode/binaries.js';
import { createDecoder } from './decode/decoder.js';
import { DimensionListing } from './dimension-listing.js';
import { resolveLimits } from './decode/limits.js';
import { evaluateClip } from './pipeline/evaluate.js';
import type { CatalogOptions, MethodCatalog } from './workers/catalog-types.js';
import { WorkerPool } from './workers/pool.js';
import type { ModelResolver } from './pipeline/evaluate.js';
import type { ModelProgressEvent, ModelStore } from './models/store.js';
import type { Precision } from './models/manifest.js';
import { resolveInference } from './inference/settings.js';
import type { InferenceOptions, InferenceSettings } from './inference/settings.js';

export interface CreateEngineOptions extends EngineOptions {
  /**
   * Frames of more than `aboveBytes` reach the methods as bands of about `bytes` (default: above
   * 8 MiB, bands of 4 MiB, i.e. 4K and larger in RGB). For tests that exercise bands on small clips.
   */
  frameBands?: { aboveBytes: number; bytes: number };
  /** Whether a model is installed; forwarded to the dimension registry (default: none is). */
  modelAvailable?: (modelId: string) => boolean;
  /**
   * Replace the method catalog (default: this build's registry and methods). `module` is the URL
   * workers import; `exports` is the same module loaded in the calling thread.
   */
  catalog?: { module: string | URL; exports: MethodCatalog };
  /**
   * The model store that model-backed methods read their models from (pulled on first use unless
   * the store is offline). It also answers model availability when `modelAvailable` is not given.
   * Without a store, only the model-free methods are available.
   */
  models?: ModelStore;
  /** Execution provider, precision, batch size and session limits for model inference. */
  inference?: InferenceOptions;
  /** Progress of model pulls started by evaluations (first use of a model not in the cache). */
  onModelProgress?: (event: ModelProgressEvent) => void;
  /**
   * After a model could not be pulled, evaluations use the fallback method without trying again
   * for this long (default 10 minutes; 0 retries on every evaluation).
   */
  retryFailedPullAfterMs?: number;
}

/** The precision a model is used at: the configured one when the model publishes it, else its default. */
export function modelPrecision(store: ModelStore, modelId: string, wanted: Precision): Precision {
  const entry = store.manifest.find((m) => m.id === modelId);
  if (!entry) return wanted;
  return entry.precisions.includes(wanted) ? wanted : (entry.precisions[0] ?? 'fp32');
}

/**
 * Remembers models whose pull failed, so that a machine that cannot reach any model source does
 * not pay a failed download on every clip: for `retryMs` the failure is answered from memory (and
 * the model reads as unavailable), then the next evaluation tries again.
 */
class FailedPulls {
  private readonly failures = new Map<string, { error: Error; until: number }>();
  /** Changes whenever a failure is remembered or forgotten (what the dimension listing is kept for). */
  generation = 0;
  constructor(private readonly retryMs: number) {}
  recent(modelId: string): Error | undefined {
    const f = this.failures.get(modelId);
    if (f === undefined) return undefined;
    if (Date.now() < f.until) return f.error;
    this.failures.delete(modelId);
    this.generation++;
    return undefined;
  }
  remember(modelId: string, error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.retryMs <= 0) return;
    this.failures.set(modelId, { error: err, until: Date.now() + this.retryMs });
    this.generation++;
  }
}

function storeResolver(
  store: ModelStore,
  settings: InferenceSettings,
  failed: FailedPulls,
  onProgress?: (event: ModelProgressEvent) => void,
): ModelResolver {
  return {
    settings,
    async resolve(modelId, signal) {
      const recent = failed.recent(modelId);
      if (recent !== undefined) throw recent;
      try {
        const installed = await store.ensure(modelId, {
          precision: modelPrecision(store, modelId, settings.precision),
          ...(signal ? { signal } : {}),
          ...(onProgress ? { onProgress } : {}),
        });
        return { id: installed.id, files: installed.files, ref: installed.ref };
      } catch (err) {
        // An abort says nothing about the model; anything else (offline, unreachable, checksum) does.
        if (!(signal?.aborted ?? false)) failed.remember(modelId, err);
        throw err;
      }
    },
  };
}

/** True when this file runs from TypeScript source (tests, tsx); then workers load `.ts` via tsx. */
function sourceExtension(): 'ts' | 'js' {
  return import.meta.url.endsWith('.ts') ? 'ts' : 'js';
}

/** tsx's ESM register API (only needed, and only resolved, when running from source). */
function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/index\.cjs$/, 'index.mjs')).href;
}

export function createEngine(options: CreateEngineOptions = {}): Engine {
  const limits = resolveLimits(options.limits);
  const binaries = {
    ffmpegPath: options.ffmpegPath ?? defaultFfmpegPath(),
    ffprobePath: options.ffprobePath ?? defaultFfprobePath(),
  };
  const decoder = createDecoder({
    ...binaries,
    limits,
    ...(options.frameBands ? { bands: options.frameBands } : {}),
  });
  const ext = sourceExtension();
  const threads = options.threads ?? Math.min(2, availableParallelism());
  if (!(Number.isInteger(threads) && threads >= 1)) throw new RangeError('threads must be an integer >= 1');
  const pool = new WorkerPool({
    size: threads,
    script: new URL(`./workers/evaluation-worker.${ext}`, import.meta.url),
    ...(ext === 'ts' ? { tsxApi: tsxApiUrl() } : {}),
  });
  const catalog: MethodCatalog = options.catalog?.exports ?? defaultCatalog;
  const catalogUrl = String(options.catalog?.module ?? new URL(`./catalog.${ext}`, import.meta.url));
  const inference = resolveInference(options.inference);
  const store = options.models;
  const failedPulls = new FailedPulls(options.retryFailedPullAfterMs ?? 10 * 60_000);
  /**
   * A model is usable when `available` (a store's answer, at the configured precision) says so and
   * its pull did not fail moments ago: what evaluations and the dimension listing both ask.
   */
  const usable =
    (on: ModelStore, available: (id: string, precision: Precision) => boolean) =>
    (id: string): boolean =>
      failedPulls.recent(id) === undefined && available(id, modelPrecision(on, id, inference.precision));
  const modelAvailable =
    options.modelAvailable ?? (store ? usable(store, (id, p) => store.isAvailableSync(id, p)) : undefined);
  const catalogOptions: CatalogOptions = modelAvailable ? { modelAvailable } : {};
  const models = store ? storeResolver(store, inference, failedPulls, options.onModelProgress) : undefined;
  const listing = store
    ? new DimensionListing({
        // The registry asks about each model-backed method (~27 questions, 14 models): one checker
        // answers them all from what the store last saw installed while its lock file is unchanged
        // (no file read per question). Pull failures are asked live, as for an evaluation.
        make: () => catalog.listDimensions({ modelAvailable: usable(store, store.availabilityChecker()) }),
        installedStamp: () => store.installedStamp(),
        generation: () => failedPulls.generation,
      })
    : null;

  return {
    probe(path: string, signal?: AbortSignal): Promise<ClipProbe> {
      return decoder.probe(path, signal);
    },
    evaluate(path: string, evaluateOptions: EvaluateOptions): Promise<EvaluationResult> {
      return evaluateClip(
        { decoder, pool, catalog, catalogUrl, catalogOptions, ...(models ? { models } : {}) },
        path,
        evaluateOptions,
      );
    },
    dimensions() {
      if (options.modelAvailable || !listing) return catalog.listDimensions(catalogOptions);
      return listing.current();
    },
    async checkReady(): Promise<void> {
      await Promise.all([
        access(binaries.ffmpegPath, constants.X_OK),
        access(binaries.ffprobePath, constants.X_OK),
      ]);
    },
    close(): Promise<void> {
      return pool.close();
    },
  };
}
