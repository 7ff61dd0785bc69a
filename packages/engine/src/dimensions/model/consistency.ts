/**
 * subject_consistency (DINO ViT-B/16) and background_consistency (CLIP ViT-B/32), method `vbench`
 * (vbench-methods.md §2.1–2.2): features of every frame, L2-normalised;
 *   s_t = ½·[max(0, cos(f_{t−1}, f_t)) + max(0, cos(f_0, f_t))], value = mean over t ≥ 1.
 * DINO: `last_hidden_state[:, 0]` (CLS after the final LayerNorm) on the DINO transform (shorter
 * side 224 bilinear, no crop); CLIP: `image_embeds` on the CLIP transform (224 bicubic + crop).
 */
import { EngineError } from '../../contract.js';
import type { DimensionId, Frame } from '../../contract.js';
import { featureSpec } from '../../inference/job.js';
import type { BatchQueue, BatchSpec, JobInference } from '../../inference/job.js';
import type { AsyncMethodRun, MethodContext, MethodOutcome, ModelMethod } from '../../method-contract.js';
import { FrameSizeGuard } from '../common.js';
import { allNative, dot, inferenceOf, l2normalise, MODEL_IDS, refsOf } from './common.js';

/**
 * DINO on VBench's aspect-preserving input; an export whose position embeddings are fixed at
 * 224×224 (no interpolation traced) rejects non-square input, and then the queue redoes the frames
 * with a 224 centre crop (`details.dinoInput` says which ran).
 */
export const DINO_FEATURES: BatchSpec<Float32Array> = {
  ...featureSpec(MODEL_IDS.dino, 'model', 'pixel_values', 'last_hidden_state', 'cls', 'dino224'),
  fallback: 'dino224crop',
};
export const CLIP_B32_FEATURES: BatchSpec<Float32Array> = featureSpec(
  MODEL_IDS.clipB32,
  'vision',
  'pixel_values',
  'image_embeds',
  'row',
  'clip224',
);

/** Collects one feature per pushed frame (in order, repeats included) through a shared queue. */
export class FeatureCollector {
  readonly guard: FrameSizeGuard;
  readonly queue: BatchQueue<Float32Array>;
  readonly features: Array<Promise<Float32Array>> = [];
  readonly indices: number[] = [];

  constructor(
    readonly inference: JobInference,
    dimension: DimensionId,
    spec: BatchSpec<Float32Array>,
  ) {
    this.guard = new FrameSizeGuard(dimension, 3);
    this.queue = inference.queue(spec);
  }

  push(frame: Frame): Promise<void> | undefined {
    this.guard.check(frame);
    this.features.push(this.queue.submit(frame));
    this.indices.push(frame.index);
    return this.queue.pressure();
  }

  async all(): Promise<Float32Array[]> {
    await this.queue.drain();
    return Promise.all(this.features);
  }
}

/** VBench's consistency formula on L2-normalised features. */
export function consistencyScore(features: readonly Float32Array[]): {
  value: number;
  pairs: number;
  minFirst: number;
  minPrev: number;
} {
  const f = features.map(l2normalise);
  let sum = 0;
  let minFirst = 1;
  let minPrev = 1;
  for (let t = 1; t < f.length; t++) {
    const cp = dot(f[t - 1]!, f[t]!);
    const cf = dot(f[0]!, f[t]!);
    sum += 0.5 * (Math.max(0, cp) + Math.max(0, cf));
    minFirst = Math.min(minFirst, cf);
    minPrev = Math.min(minPrev, cp);
  }
  return { value: sum / (f.length - 1), pairs: f.length - 1, minFirst, minPrev };
}

function consistencyMethod(dimension: DimensionId, spec: BatchSpec<Float32Array>): ModelMethod {
  return {
    dimension,
    id: 'vbench',
    version: '0.1.5-onnx.1',
    models: [spec.model],
    frames: () => allNative(),
    start: (context: MethodContext): AsyncMethodRun => {
      const c = new FeatureCollector(inferenceOf(context, dimension), dimension, spec);
      return {
        push: (frame) => c.push(frame),
        async finish(): Promise<MethodOutcome> {
          const features = await c.all();
          if (features.length < 2)
            throw new EngineError('too_few_frames', `${dimension} needs at least 2 frames`);
          const s = consistencyScore(features);
          const size = c.queue.inputSize;
          return {
            value: s.value,
            indices: c.indices,
            models: refsOf(c.inference, [spec.model]),
            details: {
              pairs: s.pairs,
              minCosineToFirst: s.minFirst,
              minCosineToPrevious: s.minPrev,
              featureDim: features[0]!.length,
              inputWidth: size?.width ?? 0,
              inputHeight: size?.height ?? 0,
              batches: c.queue.runs,
              input: c.queue.transform,
              ...(c.queue.fallbackReason ? { inputFallbackReason: c.queue.fallbackReason } : {}),
            },
          };
        },
      };
    },
  };
}

export const subjectConsistencyVbench = consistencyMethod('subject_consistency', DINO_FEATURES);
export const backgroundConsistencyVbench = consistencyMethod('background_consistency', CLIP_B32_FEATURES);
