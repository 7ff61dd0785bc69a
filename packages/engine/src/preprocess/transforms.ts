/**
 * VBench's image transforms (vbench-methods.md §1.4), written in TypeScript for parity:
 * - CLIP (`clip_transform(224)`): shorter side → 224 bicubic (antialias=False) on float pixels,
 *   centre-crop 224×224 (torchvision offsets: int(round((H − 224)/2)), Python rounding), /255,
 *   CLIP mean/std;
 * - DINO (`dino_transform(224)`): shorter side → 224 bilinear (antialias=False), no crop (aspect
 *   kept), /255, ImageNet mean/std; `dino224crop` adds a 224 centre crop, for exports that only
 *   take 224×224;
 * - detector (DETR): shorter side → 800, longer side capped at 1333, bilinear, /255, ImageNet
 *   mean/std (the DetrImageProcessor protocol; DETR is Vesta's substitute for GRiT).
 * Output: planar float32 [3, H, W] written into a caller's batch buffer at an offset.
 *
 * Deviation: VBench's appearance_style runs the PIL variant of the CLIP transform (PIL bicubic
 * always antialiases); Vesta uses the tensor variant for every CLIP dimension, so one embedding
 * per frame serves background_consistency and appearance_style alike.
 */
import type { Frame } from '../contract.js';
import { roundHalfEven } from '../dimensions/common.js';
import { resizeInterleaved, shortSideSize } from './resize.js';
import type { Interpolation } from './resize.js';

export const CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073] as const;
export const CLIP_STD = [0.26862954, 0.26130258, 0.27577711] as const;
export const IMAGENET_MEAN = [0.485, 0.456, 0.406] as const;
export const IMAGENET_STD = [0.229, 0.224, 0.225] as const;

export type TransformId = 'clip224' | 'dino224' | 'dino224crop' | 'detr800';

export interface TransformSpec {
  id: TransformId;
  mode: Interpolation;
  /** Shorter side after resizing. */
  shortSide: number;
  /** Cap on the longer side (the shorter side shrinks to keep the aspect), or null. */
  maxLongSide: number | null;
  /** Square centre crop after resizing, or null (no crop). */
  crop: number | null;
  mean: readonly number[];
  std: readonly number[];
}

export const TRANSFORMS: Readonly<Record<TransformId, TransformSpec>> = {
  clip224: {
    id: 'clip224',
    mode: 'bicubic',
    shortSide: 224,
    maxLongSide: null,
    crop: 224,
    mean: CLIP_MEAN,
    std: CLIP_STD,
  },
  dino224: {
    id: 'dino224',
    mode: 'bilinear',
    shortSide: 224,
    maxLongSide: null,
    crop: null,
    mean: IMAGENET_MEAN,
    std: IMAGENET_STD,
  },
  // For DINO exports whose position embeddings are fixed at 224×224 (see consistency.ts).
  dino224crop: {
    id: 'dino224crop',
    mode: 'bilinear',
    shortSide: 224,
    maxLongSide: null,
    crop: 224,
    mean: IMAGENET_MEAN,
    std: IMAGENET_STD,
  },
  detr800: {
    id: 'detr800',
    mode: 'bilinear',
    shortSide: 800,
    maxLongSide: 1333,
    crop: null,
    mean: IMAGENET_MEAN,
    std: IMAGENET_STD,
  },
};

/** The resized (pre-crop) size for a source size. */
export function resizedSize(
  spec: TransformSpec,
  width: number,
  height: number,
): { width: number; height: number } {
  if (spec.maxLongSide === null) return shortSideSize(width, height, spec.shortSide);
  // DetrImageProcessor: shorter side → size unless the longer side would exceed max_size.
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  let size = spec.shortSide;
  if ((long / short) * size > spec.maxLongSide)
    size = Math.trunc(roundHalfEven((spec.maxLongSide * short) / long));
  if (width <= height) return { width: size, height: Math.trunc((size * height) / width) };
  return { width: Math.trunc((size * width) / height), height: size };
}

/** The output tensor size [H, W] of a transform for a source size. */
export function outputSize(
  spec: TransformSpec,
  width: number,
  height: number,
): { width: number; height: number } {
  if (spec.crop !== null) return { width: spec.crop, height: spec.crop };
  return resizedSize(spec, width, height);
}

/** torchvision CenterCrop offsets: int(round((size − crop)/2)) with Python rounding. */
export function centreCropOffset(size: number, crop: number): number {
  return Math.trunc(roundHalfEven((size - crop) / 2));
}

/**
 * Applies a transform to one RGB frame; writes planar [3, H, W] into `out` at `offset` (or a new
 * array). Returns the array and the output size.
 */
export function applyTransform(
  spec: TransformSpec,
  frame: Pick<Frame, 'width' | 'height' | 'channels' | 'data'>,
  out?: Float32Array,
  offset = 0,
): { data: Float32Array; width: number; height: number } {
  if (frame.channels !== 3) throw new RangeError(`transform ${spec.id} needs RGB frames`);
  const rs = resizedSize(spec, frame.width, frame.height);
  const resized = resizeInterleaved(frame.data, frame.width, frame.height, 3, rs.width, rs.height, spec.mode);
  const os = outputSize(spec, frame.width, frame.height);
  if (spec.crop !== null && (rs.width < spec.crop || rs.height < spec.crop)) {
    throw new RangeError(
      `transform ${spec.id}: resized frame ${rs.width}×${rs.height} is smaller than the crop`,
    );
  }
  const top = spec.crop !== null ? centreCropOffset(rs.height, spec.crop) : 0;
  const left = spec.crop !== null ? centreCropOffset(rs.width, spec.crop) : 0;
  const target = out ?? new Float32Array(3 * os.width * os.height);
  const plane = os.width * os.height;
  for (let c = 0; c < 3; c++) {
    const scale = 1 / (255 * spec.std[c]!);
    const shift = spec.mean[c]! / spec.std[c]!;
    for (let y = 0; y < os.height; y++) {
      const src = (c * rs.height + y + top) * rs.width + left;
      const dst = offset + c * plane + y * os.width;
      for (let x = 0; x < os.width; x++) target[dst + x] = resized.data[src + x]! * scale - shift;
    }
  }
  return { data: target, width: os.width, height: os.height };
}
