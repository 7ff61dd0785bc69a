/**
 * Resizing with the semantics of torchvision's tensor `Resize(..., antialias=False)`, which is
 * `torch.nn.functional.interpolate(mode, align_corners=False)` on float images:
 * - source coordinate of output pixel d: s = (d + 0.5)·(in/out) − 0.5;
 * - bilinear clamps s to ≥ 0, then blends pixels ⌊s⌋ and min(⌊s⌋+1, in−1);
 * - bicubic (Keys kernel, A = −0.75) does not clamp s; its four taps ⌊s⌋−1 … ⌊s⌋+2 are clamped to
 *   the image (border replication);
 * - no antialiasing (downscales sample, they do not average), no rounding, no clamping of values.
 * The resize is separable (rows, then columns), as PyTorch computes it; the only difference is
 * float32 rounding order.
 */

export type Interpolation = 'bilinear' | 'bicubic';

/** A planar float image: `channels` planes of width × height, values on the 0..255 scale. */
export interface PlanarImage {
  width: number;
  height: number;
  channels: number;
  data: Float32Array;
}

/** torchvision `Resize(size)` with an int: shorter side → size, longer side → int(size·long/short). */
export function shortSideSize(
  width: number,
  height: number,
  size: number,
): { width: number; height: number } {
  if (width <= height) return { width: size, height: Math.trunc((size * height) / width) };
  return { width: Math.trunc((size * width) / height), height: size };
}

const CUBIC_A = -0.75;

function cubic1(x: number): number {
  return ((CUBIC_A + 2) * x - (CUBIC_A + 3)) * x * x + 1;
}

function cubic2(x: number): number {
  return ((CUBIC_A * x - 5 * CUBIC_A) * x + 8 * CUBIC_A) * x - 4 * CUBIC_A;
}

/** Per output position: source indices and weights (taps: 2 for bilinear, 4 for bicubic). */
export interface Taps {
  taps: number;
  index: Int32Array;
  weight: Float32Array;
}

export function resizeTaps(inSize: number, outSize: number, mode: Interpolation): Taps {
  const scale = inSize / outSize;
  const taps = mode === 'bilinear' ? 2 : 4;
  const index = new Int32Array(outSize * taps);
  const weight = new Float32Array(outSize * taps);
  const clampIdx = (i: number): number => (i < 0 ? 0 : i > inSize - 1 ? inSize - 1 : i);
  for (let d = 0; d < outSize; d++) {
    if (mode === 'bilinear') {
      let s = (d + 0.5) * scale - 0.5;
      if (s < 0) s = 0;
      const i0 = Math.floor(s);
      const l = s - i0;
      index[d * 2] = clampIdx(i0);
      index[d * 2 + 1] = clampIdx(i0 + 1);
      weight[d * 2] = 1 - l;
      weight[d * 2 + 1] = l;
    } else {
      const s = (d + 0.5) * scale - 0.5;
      const i0 = Math.floor(s);
      const t = s - i0;
      const w = [cubic2(t + 1), cubic1(t), cubic1(1 - t), cubic2(2 - t)];
      for (let k = 0; k < 4; k++) {
        index[d * 4 + k] = clampIdx(i0 - 1 + k);
        weight[d * 4 + k] = w[k]!;
      }
    }
  }
  return { taps, index, weight };
}

/**
 * Resizes one or more interleaved RGB (or grey) byte frames' region into planar float output.
 * `src` is interleaved (HWC) bytes; the output is planar (CHW) float32 on 0..255.
 */
export function resizeInterleaved(
  src: Uint8Array,
  width: number,
  height: number,
  channels: number,
  outWidth: number,
  outHeight: number,
  mode: Interpolation,
): PlanarImage {
  const tx = resizeTaps(width, outWidth, mode);
  const ty = resizeTaps(height, outHeight, mode);
  // Horizontal pass: [channels][height][outWidth].
  const tmp = new Float32Array(channels * height * outWidth);
  for (let y = 0; y < height; y++) {
    const row = y * width * channels;
    for (let x = 0; x < outWidth; x++) {
      for (let c = 0; c < channels; c++) {
        let s = 0;
        for (let k = 0; k < tx.taps; k++) {
          s += tx.weight[x * tx.taps + k]! * src[row + tx.index[x * tx.taps + k]! * channels + c]!;
        }
        tmp[(c * height + y) * outWidth + x] = s;
      }
    }
  }
  // Vertical pass.
  const out = new Float32Array(channels * outHeight * outWidth);
  for (let c = 0; c < channels; c++) {
    const plane = c * height * outWidth;
    for (let y = 0; y < outHeight; y++) {
      const o = (c * outHeight + y) * outWidth;
      for (let k = 0; k < ty.taps; k++) {
        const w = ty.weight[y * ty.taps + k]!;
        const r = plane + ty.index[y * ty.taps + k]! * outWidth;
        for (let x = 0; x < outWidth; x++) out[o + x] = out[o + x]! + w * tmp[r + x]!;
      }
    }
  }
  return { width: outWidth, height: outHeight, channels, data: out };
}
