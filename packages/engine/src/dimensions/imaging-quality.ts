/**
 * imaging_quality, method `lite`: a classical no-reference quality measure in [0, 1] (a stand-in
 * for MUSIQ). 8 frames (VBench's "middle" sampler), decoded at native resolution, luma only.
 * Blockiness is measured at native resolution (the coded 8×8 grid only exists there); sharpness and
 * noise on the frame halved (2×2 means) until its longer side is ≤ 640. Per frame:
 *   sharp   = 0.2 + 0.8/(1 + exp((blur − 0.5)/0.08))   blur: Crété-Roffet blur effect (0 sharp … 1),
 *                                                     differences soft-thresholded by 2.8·σ_n
 *   clean   = 1 / (1 + (σ_n/4)²)                      σ_n: Immerkær noise σ on the smoothest 30 %,
 *                                                     white part only (min with 2× the half-size σ)
 *   block   = exp(−4·max(0, B − 0.03))                B: 8×8-grid blockiness (0 none … 1 pure blocks)
 *   expo    = (1 − clipped)·exp(−½((μ − 118)/80)²)·(1 − exp(−σ_Y/12))
 *   q       = sharp · clean · block · expo
 * value = mean of q over the frames.
 */
import { EngineError } from '../contract.js';
import type { Frame, VideoProbe } from '../contract.js';
import type { DimensionMethod, MethodOutcome, MethodRun } from '../method-contract.js';
import { frameToGrey } from '../image/convert.js';
import { halve } from '../image/resize.js';
import { blockiness, blurEffect, exposureStats, whiteNoiseSigma } from '../image/quality.js';
import type { GreyImage } from '../image/types.js';
import { FrameSizeGuard } from './common.js';
import { FramePicker, nativeRequest } from './working.js';

export const IMAGING_FRAMES = 8;

export interface ImagingComponents {
  blur: number;
  noise: number;
  blockiness: number;
  mean: number;
  std: number;
  clipped: number;
  sharp: number;
  clean: number;
  block: number;
  exposure: number;
  quality: number;
}

/** Longer side at which sharpness and noise are measured (MUSIQ's own input is ≤ 512 in VBench). */
export const ANALYSIS_MAX_SIDE = 640;

export function imagingComponents(grey: GreyImage): ImagingComponents {
  let small = grey;
  while (Math.max(small.width, small.height) > ANALYSIS_MAX_SIDE) small = halve(small);
  const noise = whiteNoiseSigma(small);
  const blur = blurEffect(small, 2.8 * noise);
  const b = blockiness(grey);
  const { mean, std, clipped } = exposureStats(grey);
  const sharp = 0.2 + 0.8 / (1 + Math.exp((blur - 0.5) / 0.08));
  const clean = 1 / (1 + (noise / 4) ** 2);
  const block = Math.exp(-4 * Math.max(0, b - 0.03));
  const exposure = (1 - clipped) * Math.exp(-0.5 * ((mean - 118) / 80) ** 2) * (1 - Math.exp(-std / 12));
  return {
    blur,
    noise,
    blockiness: b,
    mean,
    std,
    clipped,
    sharp,
    clean,
    block,
    exposure,
    quality: sharp * clean * block * exposure,
  };
}

export const imagingQualityLite: DimensionMethod = {
  dimension: 'imaging_quality',
  id: 'lite',
  version: '1',
  frames: () => nativeRequest(),
  start: (context) => new ImagingRun(context.probe),
};

class ImagingRun implements MethodRun {
  private readonly guard = new FrameSizeGuard('imaging_quality', 3);
  private readonly picker: FramePicker;
  private readonly indices: number[] = [];
  private readonly sums = { quality: 0, blur: 0, noise: 0, blockiness: 0, exposure: 0 };
  private grey: GreyImage | undefined;

  constructor(probe: VideoProbe) {
    this.picker = new FramePicker(probe, IMAGING_FRAMES);
  }

  push(frame: Frame): void {
    this.guard.check(frame);
    if (!this.picker.next(frame)) return;
    this.score(frame);
  }

  private score(frame: Frame): void {
    this.grey = frameToGrey(frame, this.grey);
    const c = imagingComponents(this.grey);
    this.sums.quality += c.quality;
    this.sums.blur += c.blur;
    this.sums.noise += c.noise;
    this.sums.blockiness += c.blockiness;
    this.sums.exposure += c.exposure;
    this.indices.push(frame.index);
  }

  finish(): MethodOutcome {
    const spare = this.picker.fallback();
    if (spare) this.score(spare);
    const n = this.indices.length;
    if (n < 1) throw new EngineError('too_few_frames', 'imaging_quality received no frames');
    return {
      value: this.sums.quality / n,
      indices: this.indices,
      details: {
        blurEffect: this.sums.blur / n,
        noiseSigma: this.sums.noise / n,
        blockiness: this.sums.blockiness / n,
        exposure: this.sums.exposure / n,
        frames: n,
      },
    };
  }
}
