/**
 * Dimensions scored by CLIP ViT-B/32 image–text similarity. Image embeddings come from the job's
 * shared CLIP queue (one run per frame for every dimension of the job); text embeddings are
 * computed once per text.
 *
 * - appearance_style, `vbench` (§2.14): per frame cos(image, style phrase) (= CLIP's
 *   logits_per_text / 100), mean over all frames.
 * - imaging_quality, `clip-iqa` (substitute for MUSIQ-SPAQ, whose weights are CC BY-NC-SA and have
 *   no ONNX export): CLIP-IQA's antonym prompts "Good photo." / "Bad photo.": per frame
 *   softmax(100·[cos(i, good), cos(i, bad)])[good], mean over all frames (0..1).
 * - overall_consistency, temporal_style, `clip` (substitute for ViCLIP, which has no ONNX export):
 *   8 uniform frames; the video embedding is the mean of the L2-normalised frame embeddings;
 *   value = cos(video embedding, prompt embedding) (text truncated to CLIP's 77 tokens).
 * - scene, `clip` (substitute for Tag2Text captions): 16 uniform frames; per frame, zero-shot
 *   classification over "a photo of a {label}." for VBench's scene labels plus the requested scene;
 *   a frame is a hit when the requested scene has the highest probability; value = hits / 16.
 * - human_action, `clip` (substitute for UMT Kinetics-400): 16 uniform frames; per frame
 *   softmax(100·cos) over "a person is {action}." for a list of Kinetics-400 actions plus the
 *   requested one; the frame probabilities are averaged; value = 1 when the requested action is
 *   the most probable (VBench's per-video boolean), else 0.
 */
import { EngineError } from '../../contract.js';
import type { DimensionId } from '../../contract.js';
import type {
  AsyncMethodRun,
  FrameRequest,
  MethodContext,
  MethodOutcome,
  ModelMethod,
} from '../../method-contract.js';
import {
  allNative,
  CLIP_LOGIT_SCALE,
  cosineOf,
  inferenceOf,
  l2normalise,
  MODEL_IDS,
  refsOf,
  requireAux,
  requirePrompt,
  softmax,
  uniformNative,
} from './common.js';
import { CLIP_B32_FEATURES, FeatureCollector } from './consistency.js';
import { ACTION_LABELS, SCENE_LABELS } from './labels.js';

const CLIP = MODEL_IDS.clipB32;

type Scorer = (
  images: Float32Array[],
  texts: Float32Array[],
) => { value: number; details: Record<string, number | string | boolean> };

function clipTextMethod(
  dimension: DimensionId,
  id: string,
  frames: () => FrameRequest,
  textsOf: (context: MethodContext) => string[],
  score: Scorer,
): ModelMethod {
  return {
    dimension,
    id,
    version: '1',
    models: [CLIP],
    frames,
    start: (context: MethodContext): AsyncMethodRun => {
      const texts = textsOf(context);
      const inference = inferenceOf(context, dimension);
      const c = new FeatureCollector(inference, dimension, CLIP_B32_FEATURES);
      const textEmbeds = inference.textEmbeddings(CLIP, texts);
      textEmbeds.catch(() => undefined);
      return {
        push: (frame) => c.push(frame),
        async finish(): Promise<MethodOutcome> {
          const images = await c.all();
          if (images.length < 1) throw new EngineError('too_few_frames', `${dimension} received no frames`);
          const { value, details } = score(images, await textEmbeds);
          return {
            value,
            indices: c.indices,
            models: refsOf(inference, [CLIP]),
            details: { frames: images.length, ...details },
          };
        },
      };
    },
  };
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export const appearanceStyleVbench = clipTextMethod(
  'appearance_style',
  'vbench',
  allNative,
  (ctx) => [requireAux(ctx, 'appearance_style', 'appearance_style')],
  (images, [style]) => {
    const sims = images.map((i) => cosineOf(i, style!));
    return {
      value: mean(sims),
      details: { minFrameSimilarity: Math.min(...sims), maxFrameSimilarity: Math.max(...sims) },
    };
  },
);

export const IQA_PROMPTS = ['Good photo.', 'Bad photo.'] as const;

export const imagingQualityClipIqa = clipTextMethod(
  'imaging_quality',
  'clip-iqa',
  allNative,
  () => [...IQA_PROMPTS],
  (images, [good, bad]) => {
    const p = images.map((i) => softmax([cosineOf(i, good!), cosineOf(i, bad!)], CLIP_LOGIT_SCALE)[0]!);
    return { value: mean(p), details: { minFrameScore: Math.min(...p), maxFrameScore: Math.max(...p) } };
  },
);

/** cos(mean of normalised frame embeddings, text). */
export function videoTextCosine(images: readonly Float32Array[], text: Float32Array): number {
  const d = images[0]!.length;
  const sum = new Float32Array(d);
  for (const img of images) {
    const n = l2normalise(img);
    for (let k = 0; k < d; k++) sum[k] = sum[k]! + n[k]!;
  }
  return cosineOf(sum, text);
}

function promptAlignment(dimension: DimensionId): ModelMethod {
  return clipTextMethod(
    dimension,
    'clip',
    () => uniformNative(8),
    (ctx) => [requirePrompt(ctx, dimension)],
    (images, [prompt]) => ({ value: videoTextCosine(images, prompt!), details: {} }),
  );
}

export const overallConsistencyClip = promptAlignment('overall_consistency');
export const temporalStyleClip = promptAlignment('temporal_style');

/** Candidate labels with the target first (added when the list lacks it). */
export function candidates(target: string, labels: readonly string[]): string[] {
  const t = target.toLowerCase();
  return [t, ...labels.filter((l) => l.toLowerCase() !== t)];
}

export const SCENE_TEMPLATE = (label: string): string => `a photo of a ${label}.`;
export const ACTION_TEMPLATE = (label: string): string => `a person is ${label}.`;

export const sceneClip = clipTextMethod(
  'scene',
  'clip',
  () => uniformNative(16),
  (ctx) => candidates(requireAux(ctx, 'scene', 'scene'), SCENE_LABELS).map(SCENE_TEMPLATE),
  (images, texts) => {
    let hits = 0;
    for (const img of images) {
      const p = softmax(
        texts.map((t) => cosineOf(img, t)),
        CLIP_LOGIT_SCALE,
      );
      if (p.indexOf(Math.max(...p)) === 0) hits++;
    }
    return { value: hits / images.length, details: { hits, labels: texts.length } };
  },
);

export const humanActionClip = clipTextMethod(
  'human_action',
  'clip',
  () => uniformNative(16),
  (ctx) => candidates(requireAux(ctx, 'human_action', 'action'), ACTION_LABELS).map(ACTION_TEMPLATE),
  (images, texts) => {
    const avg = new Array<number>(texts.length).fill(0);
    for (const img of images) {
      const p = softmax(
        texts.map((t) => cosineOf(img, t)),
        CLIP_LOGIT_SCALE,
      );
      p.forEach((v, k) => (avg[k] = avg[k]! + v / images.length));
    }
    const best = avg.indexOf(Math.max(...avg));
    return {
      value: best === 0 ? 1 : 0,
      details: { targetProbability: avg[0]!, bestLabelIndex: best, labels: texts.length },
    };
  },
);
