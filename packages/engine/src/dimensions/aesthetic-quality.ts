/**
 * aesthetic_quality, method `lite` (version 2): a model-free PROXY for the LAION aesthetic
 * predictor, not a learned aesthetic model. 8 frames (VBench's "middle" sampler) at the working
 * resolution (longer side ≤ 256). Per frame, six classical aesthetic features on [0, 1] (the
 * feature families of Datta et al., ECCV 2006, and Ke et al., CVPR 2006), weighted equally:
 *   colour   = 1 − exp(−M/30)                M: Hasler–Süsstrunk colourfulness of the 2×2-mean
 *                                            half-size frame (noise does not read as colour)
 *   contrast = 1 − exp(−σ_Y/30)              σ_Y: luma standard deviation
 *   exposure = (1 − clipped)·exp(−½((μ − 118)/70)²)
 *   sharp    = 1 − blur                      blur: Crété-Roffet blur effect, differences
 *                                            soft-thresholded by 2.8·σ_n (noise is not detail)
 *   thirds   = 1 − min(1, d/0.25)            d: distance of the gradient-energy centroid to the
 *                                            nearest rule-of-thirds point or the centre
 *   clean    = 1 / (1 + (σ_n/5)²)            σ_n: white-noise σ (clipped pixels left out)
 *   a = (colour + contrast + exposure + sharp + thirds + clean)/6
 * value = mean of a over the frames. Version 1 multiplied the sum by `clean` (noise gated the whole
 * score, so a mild blur that removed grain raised it) and used a sigmoid of the blur effect.
 */
import { EngineError } from '../contract.js';
import type { Frame, VideoProbe } from '../contract.js';
import type { DimensionMethod, MethodOutcome, MethodRun } from '../method-contract.js';
import { blurEffect, colourfulness, exposureStats, whiteNoiseSigma } from '../image/quality.js';
import { halveRgb } from '../image/resize.js';
import type { GreyImage } from '../image/types.js';
import { FrameSizeGuard } from './common.js';
import { FramePicker, greyOf, rgbOf, workingRequest } from './working.js';

export const AESTHETIC_FRAMES = 8;

/** Distance (in frame-normalised units) of the gradient-energy centroid to the nearest anchor. */
function thirdsDistance(grey: GreyImage): number {
  const { width: w, height: h, data } = grey;
  let sx = 0;
  let sy = 0;
  let se = 0;
  for (let y = 1; y < h - 1; y++) {
    const o = y * w;
    for (let x = 1; x < w - 1; x++) {
      const gx = data[o + x + 1]! - data[o + x - 1]!;
      const gy = data[o + w + x]! - data[o - w + x]!;
      const e = gx * gx + gy * gy;
      sx += e * x;
      sy += e * y;
      se += e;
    }
  }
  if (se === 0) return 1;
  const cx = sx / se / Math.max(1, w - 1);
  const cy = sy / se / Math.max(1, h - 1);
  let best = Infinity;
  for (const ax of [1 / 3, 0.5, 2 / 3]) {
    for (const ay of [1 / 3, 0.5, 2 / 3]) {
      if ((ax === 0.5) !== (ay === 0.5)) continue; // the 4 thirds points and the centre
      best = Math.min(best, Math.hypot(cx - ax, cy - ay));
    }
  }
  return best;
}

export interface AestheticComponents {
  colour: number;
  contrast: number;
  exposure: number;
  sharp: number;
  thirds: number;
  clean: number;
  aesthetic: number;
}

export function aestheticComponents(rgb: Float32Array, grey: GreyImage): AestheticComponents {
  const half = halveRgb({ width: grey.width, height: grey.height, data: rgb });
  const m = colourfulness(half.data, half.width * half.height);
  const { mean, std, clipped } = exposureStats(grey);
  const noise = whiteNoiseSigma(grey, true);
  const colour = 1 - Math.exp(-m / 30);
  const contrast = 1 - Math.exp(-std / 30);
  const exposure = (1 - clipped) * Math.exp(-0.5 * ((mean - 118) / 70) ** 2);
  const sharp = 1 - blurEffect(grey, 2.8 * noise);
  const thirds = 1 - Math.min(1, thirdsDistance(grey) / 0.25);
  const clean = 1 / (1 + (noise / 5) ** 2);
  const aesthetic = (colour + contrast + exposure + sharp + thirds + clean) / 6;
  return { colour, contrast, exposure, sharp, thirds, clean, aesthetic };
}

export const aestheticQualityLite: DimensionMethod = {
  dimension: 'aesthetic_quality',
  id: 'lite',
  version: '2',
  frames: () => workingRequest(),
  start: (context) => new AestheticRun(context.probe),
};

class AestheticRun implements MethodRun {
  private readonly guard = new FrameSizeGuard('aesthetic_quality', 3);
  private readonly picker: FramePicker;
  private readonly indices: number[] = [];
  private readonly sums: Omit<AestheticComponents, 'aesthetic'> & { aesthetic: number } = {
    colour: 0,
    contrast: 0,
    exposure: 0,
    sharp: 0,
    thirds: 0,
    clean: 0,
    aesthetic: 0,
  };

  constructor(probe: VideoProbe) {
    this.picker = new FramePicker(probe, AESTHETIC_FRAMES);
  }

  push(frame: Frame): void {
    this.guard.check(frame);
    if (!this.picker.next(frame)) return;
    this.score(frame);
  }

  private score(frame: Frame): void {
    const rgb = rgbOf(frame);
    const c = aestheticComponents(rgb.data, greyOf(rgb));
    for (const k of Object.keys(this.sums) as Array<keyof AestheticComponents>) this.sums[k] += c[k];
    this.indices.push(frame.index);
  }

  finish(): MethodOutcome {
    const spare = this.picker.fallback();
    if (spare) this.score(spare);
    const n = this.indices.length;
    if (n < 1) throw new EngineError('too_few_frames', 'aesthetic_quality received no frames');
    const details: Record<string, number | string | boolean> = { proxy: true, frames: n };
    for (const k of Object.keys(this.sums) as Array<keyof AestheticComponents>) {
      if (k !== 'aesthetic') details[k] = this.sums[k] / n;
    }
    return { value: this.sums.aesthetic / n, indices: this.indices, details };
  }
}
