/**
 * motion_smoothness, method `lite`: VBench's protocol (vbench-methods.md §2.4) with a classical
 * interpolator. Even frames 0, 2, 4, … are the inputs; for each pair (2k, 2k+2) the middle frame
 * is synthesised from the flows in both directions (pyramidal Lucas–Kanade), both neighbours
 * warped halfway and averaged, truncated to uint8 as VBench does, and compared with the real frame
 * 2k+1 by mean absolute error over all pixels and channels. Everything runs on the shared ≤ 256 px
 * decode halved to longer side ≤ 128 (2×2 means, rounded to integer levels).
 * value = (255 − mean MAE)/255.
 */
import { EngineError } from '../contract.js';
import type { Frame } from '../contract.js';
import type { DimensionMethod, MethodOutcome, MethodRun } from '../method-contract.js';
import { computeFlow } from '../image/flow.js';
import type { Pyramid } from '../image/flow.js';
import { interpolateHalfway } from '../image/warp.js';
import type { RgbImage } from '../image/types.js';
import { FrameSizeGuard } from './common.js';
import { SMOOTHNESS_MAX_SIDE, flowPyramid, greyOf, smallRgb, toBytes, workingRequest } from './working.js';

export const motionSmoothnessLite: DimensionMethod = {
  dimension: 'motion_smoothness',
  id: 'lite',
  version: '1',
  frames: () => workingRequest(),
  start: () => new SmoothnessRun(),
};

interface EvenFrame {
  rgb: RgbImage;
  pyramid: Pyramid;
  finest: number;
}

/** Mean |trunc(clip(pred)) − real| over all values (VBench truncates the prediction to uint8). */
export function predictionMae(pred: Float32Array, real: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < pred.length; i++) {
    let p = pred[i]!;
    p = p < 0 ? 0 : p > 255 ? 255 : Math.trunc(p);
    const d = p - real[i]!;
    s += d < 0 ? -d : d;
  }
  return pred.length > 0 ? s / pred.length : 0;
}

/** Rounds a float RGB image to integer levels in place, as a decoder at that size would deliver it. */
function quantise(img: RgbImage): RgbImage {
  const d = img.data;
  for (let i = 0; i < d.length; i++) d[i] = Math.round(d[i]!);
  return img;
}

class SmoothnessRun implements MethodRun {
  private readonly guard = new FrameSizeGuard('motion_smoothness', 3);
  private ordinal = 0;
  private even: EvenFrame | null = null;
  private odd: Uint8Array | null = null;
  private oddIndex = -1;
  private sum = 0;
  private count = 0;
  private maxMae = 0;
  private readonly indices: number[] = [];
  private width = 0;
  private height = 0;

  push(frame: Frame): void {
    this.guard.check(frame);
    const ordinal = this.ordinal++;
    if (ordinal % 2 === 1) {
      const small = smallRgb(frame, SMOOTHNESS_MAX_SIDE);
      this.odd = toBytes(small);
      this.oddIndex = frame.index;
      return;
    }
    const rgb = quantise(smallRgb(frame, SMOOTHNESS_MAX_SIDE));
    this.width = rgb.width;
    this.height = rgb.height;
    const { pyramid, finest } = flowPyramid(greyOf(rgb));
    const cur: EvenFrame = { rgb, pyramid, finest };
    if (this.even && this.odd) {
      const fab = computeFlow(this.even.pyramid, cur.pyramid, undefined, finest);
      const fba = computeFlow(cur.pyramid, this.even.pyramid, undefined, finest);
      const mid = interpolateHalfway(this.even.rgb, cur.rgb, fab, fba);
      const mae = predictionMae(mid.data, this.odd);
      this.sum += mae;
      this.count++;
      if (mae > this.maxMae) this.maxMae = mae;
      this.indices.push(this.oddIndex);
      this.odd = null;
    }
    this.even = cur;
    this.indices.push(frame.index);
  }

  finish(): MethodOutcome {
    if (this.count < 1) {
      throw new EngineError(
        'too_few_frames',
        'motion_smoothness needs at least 3 frames (two even, one odd)',
      );
    }
    const meanMae = this.sum / this.count;
    return {
      value: (255 - meanMae) / 255,
      indices: this.indices.sort((a, b) => a - b),
      details: {
        meanAbsError: meanMae,
        maxAbsError: this.maxMae,
        interpolatedFrames: this.count,
        width: this.width,
        height: this.height,
      },
    };
  }
}
