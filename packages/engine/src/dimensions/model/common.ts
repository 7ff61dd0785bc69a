/** Helpers shared by the model-backed methods. */
import { EngineError } from '../../contract.js';
import type { DimensionId, ModelRef } from '../../contract.js';
import type { JobInference } from '../../inference/job.js';
import type { FrameRequest, MethodContext } from '../../method-contract.js';

/** Model ids of the manifest (src/models/manifest.ts) that the model-backed methods read. */
export const MODEL_IDS = {
  dino: 'dino-vitb16',
  clipB32: 'clip-vit-b32',
  clipL14: 'clip-vit-l14',
  laionHead: 'laion-aesthetic-v1-linear',
  raft: 'raft-sintel',
  rife: 'rife-v4.9',
  detr: 'detr-resnet-50',
} as const;

/** CLIP's learned temperature: logits = 100·cos. */
export const CLIP_LOGIT_SCALE = 100;

export function inferenceOf(context: MethodContext, dimension: DimensionId): JobInference {
  if (!context.inference) {
    throw new EngineError(
      'model_unavailable',
      `${dimension}: no model inference in this evaluation (models not resolved)`,
    );
  }
  return context.inference;
}

export function refsOf(inference: JobInference, ids: readonly string[]): ModelRef[] {
  return ids.map((id) => ({ ...inference.model(id).ref }));
}

/** Every frame at native resolution, RGB (VBench resizes from the decoded frame). */
export function allNative(): FrameRequest {
  return { sampling: { kind: 'all' }, maxSide: null, channels: 3 };
}

/** VBench's "middle" sampler at native resolution. */
export function uniformNative(count: number): FrameRequest {
  return { sampling: { kind: 'uniform', count }, maxSide: null, channels: 3 };
}

export function l2normalise(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  const out = new Float32Array(v.length);
  if (n === 0) return out;
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length)
    throw new EngineError('decode_failed', `feature sizes differ (${a.length} vs ${b.length})`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Cosine similarity (features normalised first). */
export function cosineOf(a: Float32Array, b: Float32Array): number {
  return dot(l2normalise(a), l2normalise(b));
}

/** Softmax of `scale·x`. */
export function softmax(x: readonly number[], scale = 1): number[] {
  const m = Math.max(...x.map((v) => v * scale));
  const e = x.map((v) => Math.exp(v * scale - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

export function requireAux(context: MethodContext, dimension: DimensionId, key: string): string {
  const aux = context.auxiliary as Record<string, string | undefined> | undefined;
  const v = aux?.[key]?.trim();
  if (!v) throw new EngineError('missing_auxiliary', `${dimension} needs auxiliary info: ${key}`);
  return v;
}

export function requirePrompt(context: MethodContext, dimension: DimensionId): string {
  const p = context.prompt?.trim();
  if (!p) throw new EngineError('missing_prompt', `${dimension} needs the clip's text prompt`);
  return p;
}
