/**
 * One evaluation's view of its worker's inference: the model files the pipeline resolved, the
 * worker's shared sessions, and per-model feature queues that batch frames. Every dimension of
 * the job that asks for the same (model, output, transform) shares one queue, so a frame is
 * preprocessed and run through a model once however many dimensions read its features.
 *
 * Memory is bounded: a queue holds at most one batch of preprocessed frames (batchSize × 3 × H × W
 * float32); `pressure()` lets a method's `push` wait while a batch runs, which stops the worker
 * from acknowledging frames and so holds the decoder back. Features (one vector per frame) are
 * kept until the job ends.
 */
import type * as ort from 'onnxruntime-node';
import { loadOrt } from './runtime.js';
import { EngineError } from '../contract.js';
import type { Frame, ModelRef } from '../contract.js';
import { applyTransform, outputSize, TRANSFORMS } from '../preprocess/transforms.js';
import type { TransformId } from '../preprocess/transforms.js';
import { loadClipTokenizer } from '../text/clip-tokenizer.js';
import type { ClipTokenizer } from '../text/clip-tokenizer.js';
import type { SessionCache } from './sessions.js';
import { floatInput, floatOutput } from './tensors.js';

/** A model's local files (absolute paths by role) and its reference for score records. */
export interface ModelFiles {
  id: string;
  files: Record<string, string>;
  ref: ModelRef;
}

/** How a per-frame feature is read from a model output: a row of [b, E], or token 0 of [b, T, D]. */
export type FeatureReadout = 'row' | 'cls';

/** Float outputs of one batch run, by output name. */
export type BatchOutputs = Record<string, { data: Float32Array; dims: number[] }>;

export interface BatchSpec<T> {
  model: string;
  /** File role of the ONNX graph (`vision`, `model`). */
  role: string;
  /** Image input name. */
  input: string;
  /** Outputs to fetch. */
  outputs: readonly string[];
  transform: TransformId;
  /**
   * A transform to switch to when the first run with `transform` fails (e.g. an export with
   * fixed position embeddings rejecting an aspect-preserving input); the first batch is redone.
   */
  fallback?: TransformId;
  /** Identifies `read` in the job's queue key (queues with equal keys are shared). */
  readoutKey: string;
  /** Per-frame results from a batch's outputs. */
  read(outputs: BatchOutputs, count: number): T[];
}

/** Per-frame feature vectors from one output (`row` or `cls` readout). */
export function featureSpec(
  model: string,
  role: string,
  input: string,
  output: string,
  readout: FeatureReadout,
  transform: TransformId,
): BatchSpec<Float32Array> {
  return {
    model,
    role,
    input,
    outputs: [output],
    transform,
    readoutKey: `${output}:${readout}`,
    read: (out, count) => {
      const o = out[output]!;
      return readFeatures(o.data, o.dims, count, readout);
    },
  };
}

interface Pending<T> {
  index: number;
  /** Kept until a run has succeeded, so a fallback transform can redo the frame. */
  frame: Frame | null;
  resolve: (v: T) => void;
  reject: (e: Error) => void;
}

/** Batches frames through one model; dedupes frames by source index. */
export class BatchQueue<T> {
  private readonly results = new Map<number, Promise<T>>();
  private batch: Float32Array | null = null;
  private pending: Array<Pending<T>> = [];
  private shape: { width: number; height: number } | null = null;
  private tail: Promise<void> = Promise.resolve();
  private running = 0;
  /** DETR's all-ones `pixel_mask` for the last batch shape (tens of MB at 800×1333), kept for the next batch. */
  private pixelMask: { n: number; width: number; height: number; tensor: ort.Tensor } | null = null;
  /** Session runs so far. */
  runs = 0;
  /** Input size of the last batch. */
  inputSize: { width: number; height: number } | null = null;
  /** The transform in use (the spec's, or its fallback after the first run failed). */
  transform: TransformId;
  /** Why the fallback transform is in use. */
  fallbackReason: string | null = null;
  private succeeded = false;
  /** The transform the pending batch buffer was filled with. */
  private batchTransform: TransformId;

  constructor(
    private readonly spec: BatchSpec<T>,
    private readonly batchSize: number,
    private readonly session: () => Promise<ort.InferenceSession>,
  ) {
    this.transform = spec.transform;
    this.batchTransform = spec.transform;
  }

  private canFallBack(): boolean {
    return !this.succeeded && this.spec.fallback !== undefined && this.transform !== this.spec.fallback;
  }

  /** The result for a frame (computed once per frame index). */
  submit(frame: Frame): Promise<T> {
    const known = this.results.get(frame.index);
    if (known) return known;
    const t = TRANSFORMS[this.transform];
    const size = outputSize(t, frame.width, frame.height);
    if (this.shape && (this.shape.width !== size.width || this.shape.height !== size.height)) this.dispatch();
    this.shape = size;
    const per = 3 * size.width * size.height;
    if (!this.batch) {
      this.batch = new Float32Array(this.batchSize * per);
      this.batchTransform = this.transform;
    }
    applyTransform(t, frame, this.batch, this.pending.length * per);
    const keep = this.canFallBack() ? frame : null;
    const p = new Promise<T>((resolve, reject) =>
      this.pending.push({ index: frame.index, frame: keep, resolve, reject }),
    );
    p.catch(() => undefined);
    this.results.set(frame.index, p);
    if (this.pending.length >= this.batchSize) this.dispatch();
    return p;
  }

  /** Resolves when no batch is running (a method's `push` awaits it for back-pressure). */
  pressure(): Promise<void> | undefined {
    return this.running > 0 ? this.tail : undefined;
  }

  /** Runs the partial batch and waits for every batch. */
  async drain(): Promise<void> {
    this.dispatch();
    await this.tail;
  }

  private dispatch(): void {
    if (this.pending.length === 0 || !this.batch || !this.shape) return;
    const items = this.pending;
    const { width, height } = this.shape;
    this.inputSize = { width, height };
    const data =
      items.length === this.batchSize ? this.batch : this.batch.slice(0, items.length * 3 * width * height);
    const built = this.batchTransform;
    this.pending = [];
    this.batch = null;
    this.running++;
    this.tail = this.tail.then(async () => {
      try {
        const redo = async (): Promise<T[]> => {
          const t = TRANSFORMS[this.transform];
          const first = items[0]!.frame!;
          const size = outputSize(t, first.width, first.height);
          const per = 3 * size.width * size.height;
          const again = new Float32Array(items.length * per);
          items.forEach((it, i) => applyTransform(t, it.frame!, again, i * per));
          this.inputSize = size;
          return this.runBatch(again, items.length, size.width, size.height);
        };
        let rows: T[];
        if (built !== this.transform && items.every((it) => it.frame)) {
          // Filled before an earlier batch switched to the fallback transform.
          rows = await redo();
        } else {
          try {
            rows = await this.runBatch(data, items.length, width, height);
          } catch (err) {
            if (err instanceof EngineError || !this.canFallBack() || items.some((it) => !it.frame)) throw err;
            // Redo this batch with the fallback transform; later frames use it too.
            this.transform = this.spec.fallback!;
            this.fallbackReason = (err as Error).message;
            rows = await redo();
          }
        }
        this.succeeded = true;
        items.forEach((it, i) => {
          it.frame = null;
          it.resolve(rows[i]!);
        });
      } catch (err) {
        const e =
          err instanceof EngineError
            ? err
            : new EngineError(
                'decode_failed',
                `${this.spec.model}: inference failed: ${(err as Error).message}`,
                { cause: err },
              );
        items.forEach((it) => it.reject(e));
      } finally {
        this.running--;
      }
    });
  }

  private async runBatch(data: Float32Array, n: number, width: number, height: number): Promise<T[]> {
    const session = await this.session();
    const runtime = await loadOrt();
    const feeds: Record<string, ort.Tensor> = {
      [this.spec.input]: floatInput(runtime, session, this.spec.input, data, [n, 3, height, width]),
    };
    if (session.inputNames.includes('pixel_mask')) {
      let m = this.pixelMask;
      if (m === null || m.n !== n || m.width !== width || m.height !== height) {
        m = {
          n,
          width,
          height,
          tensor: new runtime.Tensor('int64', new BigInt64Array(n * height * width).fill(1n), [
            n,
            height,
            width,
          ]),
        };
        this.pixelMask = m;
      }
      feeds.pixel_mask = m.tensor;
    }
    const out = await session.run(feeds);
    this.runs++;
    const outputs: BatchOutputs = {};
    for (const name of this.spec.outputs) outputs[name] = floatOutput(out[name], name);
    return this.spec.read(outputs, n);
  }
}

/** Per-frame rows of a [b, E] output, or token 0 of a [b, T, D] output. */
export function readFeatures(
  values: Float32Array,
  dims: number[],
  count: number,
  readout: FeatureReadout,
): Float32Array[] {
  if (dims[0] !== count) throw new Error(`output batch ${dims[0]} ≠ input batch ${count}`);
  const rows: Float32Array[] = [];
  if (readout === 'row') {
    if (dims.length !== 2) throw new Error(`expected a [batch, dim] output, got [${dims.join(', ')}]`);
    const d = dims[1]!;
    for (let b = 0; b < count; b++) rows.push(values.slice(b * d, (b + 1) * d));
  } else {
    if (dims.length !== 3)
      throw new Error(`expected a [batch, tokens, dim] output, got [${dims.join(', ')}]`);
    const t = dims[1]!;
    const d = dims[2]!;
    for (let b = 0; b < count; b++) rows.push(values.slice(b * t * d, b * t * d + d));
  }
  return rows;
}

export class JobInference {
  private readonly queues = new Map<string, BatchQueue<unknown>>();
  private readonly held: Array<() => void> = [];
  private readonly sessionsByPath = new Map<string, Promise<ort.InferenceSession>>();
  private readonly tokenizers = new Map<string, ClipTokenizer>();

  constructor(
    private readonly cache: SessionCache,
    private readonly models: Readonly<Record<string, ModelFiles>>,
    readonly batchSize: number,
  ) {}

  model(id: string): ModelFiles {
    const m = this.models[id];
    if (!m) throw new EngineError('model_unavailable', `model ${id} was not resolved for this evaluation`);
    return m;
  }

  file(modelId: string, role: string): string {
    const path = this.model(modelId).files[role];
    if (!path) throw new EngineError('model_unavailable', `model ${modelId} has no "${role}" file`);
    return path;
  }

  /** The worker's shared session for a model file, held until the job ends. */
  session(modelId: string, role: string): Promise<ort.InferenceSession> {
    const path = this.file(modelId, role);
    let s = this.sessionsByPath.get(path);
    if (!s) {
      s = this.cache.acquire(path).then(({ session, release }) => {
        this.held.push(release);
        return session;
      });
      s.catch(() => undefined);
      this.sessionsByPath.set(path, s);
    }
    return s;
  }

  /** The job's shared batch queue for a (model, outputs, readout, transform). */
  queue<T>(spec: BatchSpec<T>): BatchQueue<T> {
    const key = `${spec.model}|${spec.role}|${spec.input}|${spec.readoutKey}|${spec.transform}`;
    let q = this.queues.get(key) as BatchQueue<T> | undefined;
    if (!q) {
      this.file(spec.model, spec.role);
      q = new BatchQueue<T>(spec, this.batchSize, () => this.session(spec.model, spec.role));
      this.queues.set(key, q as BatchQueue<unknown>);
    }
    return q;
  }

  tokenizer(modelId: string): ClipTokenizer {
    let t = this.tokenizers.get(modelId);
    if (!t) {
      const files = this.model(modelId).files;
      const path = files.tokenizer;
      if (!path) throw new EngineError('model_unavailable', `model ${modelId} has no tokenizer.json`);
      t = loadClipTokenizer(path, files.tokenizer_config ?? null);
      this.tokenizers.set(modelId, t);
    }
    return t;
  }

  /** CLIP text embeddings (`text_embeds`) of texts, computed once per worker and text. */
  textEmbeddings(modelId: string, texts: readonly string[]): Promise<Float32Array[]> {
    const path = this.file(modelId, 'text');
    const key = (t: string): string => `${path}|${t}`;
    const missing = [...new Set(texts.filter((t) => !this.cache.text(key(t))))];
    if (missing.length > 0) {
      const run = (async () => {
        const session = await this.session(modelId, 'text');
        const runtime = await loadOrt();
        const batch = this.tokenizer(modelId).encode(missing);
        const feeds: Record<string, ort.Tensor> = {
          input_ids: new runtime.Tensor('int64', batch.ids, [batch.count, batch.length]),
        };
        if (session.inputNames.includes('attention_mask'))
          feeds.attention_mask = new runtime.Tensor('int64', batch.mask, [batch.count, batch.length]);
        const out = await session.run(feeds);
        const { data, dims } = floatOutput(out.text_embeds, 'text_embeds');
        return readFeatures(data, dims, batch.count, 'row');
      })();
      missing.forEach((t, i) => {
        const p = run.then((rows) => rows[i]!);
        p.catch(() => undefined);
        this.cache.rememberText(key(t), p);
      });
    }
    return Promise.all(
      texts.map(
        (t) =>
          this.cache.text(key(t)) ??
          Promise.reject(new EngineError('decode_failed', 'text embedding evicted')),
      ),
    );
  }

  /** Releases the job's hold on its sessions (they stay loaded in the worker's cache). */
  close(): void {
    this.held.splice(0).forEach((r) => r());
  }
}
