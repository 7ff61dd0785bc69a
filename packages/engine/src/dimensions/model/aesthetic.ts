/**
 * aesthetic_quality, method `vbench` (vbench-methods.md §2.6): CLIP ViT-L/14 `image_embeds` of
 * every frame (CLIP transform), L2-normalised → LAION V1 linear head (768 → 1) → ÷ 10, mean over
 * frames (not clamped: VBench does not clamp either).
 */
import { EngineError } from '../../contract.js';
import { featureSpec } from '../../inference/job.js';
import type { AsyncMethodRun, MethodContext, MethodOutcome, ModelMethod } from '../../method-contract.js';
import { allNative, dot, inferenceOf, l2normalise, MODEL_IDS, refsOf } from './common.js';
import { FeatureCollector } from './consistency.js';
import { loadLinearHead } from './linear-head.js';

export const CLIP_L14_FEATURES = featureSpec(
  MODEL_IDS.clipL14,
  'vision',
  'pixel_values',
  'image_embeds',
  'row',
  'clip224',
);

export const aestheticQualityVbench: ModelMethod = {
  dimension: 'aesthetic_quality',
  id: 'vbench',
  version: '0.1.5-onnx.1',
  models: [MODEL_IDS.clipL14, MODEL_IDS.laionHead],
  frames: () => allNative(),
  start: (context: MethodContext): AsyncMethodRun => {
    const inference = inferenceOf(context, 'aesthetic_quality');
    const head = loadLinearHead(inference.file(MODEL_IDS.laionHead, 'head'), 768);
    const c = new FeatureCollector(inference, 'aesthetic_quality', CLIP_L14_FEATURES);
    return {
      push: (frame) => c.push(frame),
      async finish(): Promise<MethodOutcome> {
        const features = await c.all();
        if (features.length < 1)
          throw new EngineError('too_few_frames', 'aesthetic_quality received no frames');
        const scores = features.map((f) => (dot(l2normalise(f), head.weight) + head.bias) / 10);
        const value = scores.reduce((a, b) => a + b, 0) / scores.length;
        return {
          value,
          indices: c.indices,
          models: refsOf(inference, [MODEL_IDS.clipL14, MODEL_IDS.laionHead]),
          details: {
            frames: scores.length,
            minFrameScore: Math.min(...scores),
            maxFrameScore: Math.max(...scores),
          },
        };
      },
    };
  },
};
