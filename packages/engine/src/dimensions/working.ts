/**
 * Working resolutions and the frame requests the model-free methods share. Equal requests are
 * decoded once, so every `lite` method except imaging quality asks for the same thing.
 */
import type { Frame, VideoProbe } from '../contract.js';
import type { FrameRequest } from '../method-contract.js';
import { frameToGrey, frameToRgb, rgbToGrey } from '../image/convert.js';
import { buildPyramid } from '../image/flow.js';
import type { Pyramid } from '../image/flow.js';
import { halveRgb, halveRgbBytes } from '../image/resize.js';
import type { GreyImage, RgbImage } from '../image/types.js';

/** Longer side of the shared decode (area downscale by the decoder). */
export const WORKING_MAX_SIDE = 256;
/** Longer side at which optical flow is computed (a pyramid level of the working frame). */
export const FLOW_MAX_SIDE = 128;
/** Longer side of the consistency descriptors. */
export const DESCRIPTOR_MAX_SIDE = 64;
/** Pyramid depth below the flow resolution (128 → 64 → 32 → 16). */
export const FLOW_LEVELS = 4;

/** Every frame, longer side ≤ 256, RGB: shared by all `lite` methods but imaging quality. */
export function workingRequest(): FrameRequest {
  return { sampling: { kind: 'all' }, maxSide: WORKING_MAX_SIDE, channels: 3 };
}

/** Every frame at native resolution, RGB: temporal flickering (exact formula) and imaging quality. */
export function nativeRequest(): FrameRequest {
  return { sampling: { kind: 'all' }, maxSide: null, channels: 3 };
}

/** Halve an RGB image (2×2 means) until its longer side is at most `maxSide`. */
export function shrinkRgb(img: RgbImage, maxSide: number): RgbImage {
  let cur = img;
  while (Math.max(cur.width, cur.height) > maxSide && Math.min(cur.width, cur.height) >= 2)
    cur = halveRgb(cur);
  return cur;
}

/** The frame as float RGB with its longer side at most `maxSide` (repeated 2×2 halving). */
export function smallRgb(frame: Frame, maxSide: number): RgbImage {
  if (
    frame.channels === 3 &&
    Math.max(frame.width, frame.height) > maxSide &&
    Math.min(frame.width, frame.height) >= 2
  ) {
    return shrinkRgb(halveRgbBytes(frame.data, frame.width, frame.height), maxSide);
  }
  return shrinkRgb(frameToRgb(frame), maxSide);
}

/** A grey pyramid of the frame and the level at which flow is computed (longer side ≤ 128). */
export function flowPyramid(grey: GreyImage): { pyramid: Pyramid; finest: number } {
  let finest = 0;
  let side = Math.max(grey.width, grey.height);
  let minSide = Math.min(grey.width, grey.height);
  while (side > FLOW_MAX_SIDE && minSide >= 16) {
    side = Math.floor(side / 2);
    minSide = Math.floor(minSide / 2);
    finest++;
  }
  return { pyramid: buildPyramid(grey, finest + FLOW_LEVELS, 4), finest };
}

/**
 * Values derived from one decoded frame, shared by every run that reads it: a worker pushes the
 * same frame object to each run of its output, so the ≤ 128 px halving, its grey image and flow
 * pyramid, and the ≤ 64 px descriptor input are computed once per frame instead of once per
 * dimension. Keyed by the frame's buffer (weakly: released with the frame). Every entry is exactly
 * what the run would compute on its own (same arithmetic), and callers must not modify it.
 */
const derivedCache = new WeakMap<Uint8Array, Map<string, unknown>>();

export function derived<T>(frame: Frame, key: string, make: () => T): T {
  let entries = derivedCache.get(frame.data);
  if (!entries) {
    entries = new Map();
    derivedCache.set(frame.data, entries);
  }
  if (entries.has(key)) return entries.get(key) as T;
  const value = make();
  entries.set(key, value);
  return value;
}

/**
 * `smallRgb(frame, maxSide)` through the frame's shared halving chain (level k = k 2×2 halvings),
 * so that sides 128 and 64 reuse each other's levels. Same values as `smallRgb`.
 */
export function sharedSmallRgb(frame: Frame, maxSide: number): RgbImage {
  const bytes =
    frame.channels === 3 &&
    Math.max(frame.width, frame.height) > maxSide &&
    Math.min(frame.width, frame.height) >= 2;
  const prefix = bytes ? 'b' : 'f';
  let level = 0;
  let cur = bytes
    ? derived(frame, 'b1', () => halveRgbBytes(frame.data, frame.width, frame.height))
    : derived(frame, 'f0', () => frameToRgb(frame));
  level = bytes ? 1 : 0;
  while (Math.max(cur.width, cur.height) > maxSide && Math.min(cur.width, cur.height) >= 2) {
    const prev = cur;
    level++;
    cur = derived(frame, `${prefix}${level}`, () => halveRgb(prev));
  }
  return cur;
}

/**
 * Grey of `smallRgb(frame, maxSide)`, shared. For an RGB frame already within `maxSide` it is the
 * frame's own luma (`frameToGrey`: the same values as the luma of its float copy).
 */
export function sharedSmallGrey(frame: Frame, maxSide: number): GreyImage {
  return derived(frame, `grey${maxSide}`, () =>
    frame.channels === 3 && Math.max(frame.width, frame.height) <= maxSide
      ? frameToGrey(frame)
      : rgbToGrey(sharedSmallRgb(frame, maxSide)),
  );
}

/** `flowPyramid` of the frame's ≤ 128 px grey image, shared (its levels carry their flow tensors). */
export function sharedFlowPyramid(frame: Frame): { pyramid: Pyramid; finest: number } {
  return derived(frame, 'pyramid', () => flowPyramid(sharedSmallGrey(frame, FLOW_MAX_SIDE)));
}

export function greyOf(rgb: RgbImage): GreyImage {
  return rgbToGrey(rgb);
}

export function rgbOf(frame: Frame): RgbImage {
  return frameToRgb(frame);
}

/** Float RGB to packed uint8, rounded and clamped (what a decoder at that size would deliver). */
export function toBytes(img: RgbImage): Uint8Array {
  const out = new Uint8Array(img.data.length);
  for (let i = 0; i < out.length; i++) {
    const v = Math.round(img.data[i]!);
    out[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return out;
}

/** Expected number of frames: the probe's count, else duration × fps, else 0 (unknown). */
export function expectedFrames(probe: VideoProbe): number {
  if (Number.isFinite(probe.frameCount) && probe.frameCount > 0) return probe.frameCount;
  const est = probe.durationSeconds * probe.fps;
  return Number.isFinite(est) && est > 0 ? Math.round(est) : 0;
}

/**
 * VBench's "middle" sampler (vbench-methods.md §1.3) over `length` frames: n = min(count, length)
 * bins with edges ⌊k·length/n⌋, the middle index of each bin.
 */
export function middleIndices(length: number, count: number): number[] {
  const n = Math.min(count, length);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const lo = Math.floor((k * length) / n);
    const hi = Math.floor(((k + 1) * length) / n);
    out.push(Math.floor((lo + hi - 1) / 2));
  }
  return out;
}

/**
 * Picks `count` frames spread over the clip by push order, with VBench's "middle" sampler over the
 * expected length. When the length is unknown, or the clip ends before the first pick, the last
 * frame seen is used (`fallback`), so a clip always yields at least one frame.
 */
export class FramePicker {
  private readonly picks: Set<number>;
  private seen = 0;
  private taken = 0;
  private last: Frame | null = null;
  constructor(probe: VideoProbe, count: number) {
    const n = expectedFrames(probe);
    this.picks = new Set(n > 0 ? middleIndices(n, count) : Array.from({ length: count }, (_, i) => i));
  }

  /**
   * Call once per pushed frame, in order; true when this frame is one of the picked. Until a
   * frame is picked, the unpicked frame is kept as a copy (in one reused buffer), never by
   * reference: the frame's buffer may be reused once `push` returns (`releasesFrames`).
   */
  next(frame: Frame): boolean {
    const ordinal = this.seen++;
    if (this.picks.has(ordinal)) {
      this.taken++;
      this.last = null;
      return true;
    }
    if (this.taken === 0) {
      const keep = this.last && this.last.data.length === frame.data.length ? this.last.data : null;
      const data = keep ?? new Uint8Array(frame.data.length);
      data.set(frame.data);
      this.last = { ...frame, data };
    }
    return false;
  }

  /** The last unpicked frame, when no frame was picked at all. */
  fallback(): Frame | null {
    return this.taken === 0 ? this.last : null;
  }
}
