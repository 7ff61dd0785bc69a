/**
 * imaging_quality, method `lite` (version 3): a classical no-reference quality measure in [0, 1]
 * (a stand-in for MUSIQ). 8 frames (VBench's "middle" sampler), decoded at native resolution, luma.
 * Blockiness and exposure are measured at native resolution (the coded 8×8 grid only exists
 * there); noise on the analysis frame: VBench's `longer` rule for MUSIQ (longer side > 512 →
 * area-scaled to 512); sharpness at MUSIQ's three scales (longer side 224 and 384, resized either
 * way, and the analysis frame). A palette-coded clip (GIF) is descreened first. Per frame:
 *   sharp   = 1 − blur        blur: Crété-Roffet blur effect (0 sharp … 1 blurred) of the sharpest
 *                             4 of 4×4 tiles, mean over the three scales; differences
 *                             soft-thresholded by 2.8·σ_n (scaled with the size)
 *   clean   = 1 / (1 + (σ_n/4)²)             σ_n: Immerkær noise σ on the smoothest 30 %, white
 *                                            part only, clipped pixels left out
 *   block   = exp(−4·max(0, B − 0.1))         B: 8×8-grid blockiness (0 none … 1 pure blocks)
 *   expo    = (1 − clipped)·exp(−½((μ − 118)/80)²)·(1 − exp(−σ_Y/12))
 *   depth   = min(1, log2(colours)/8) for a palette frame, else 1
 *   q       = sharp · clean · block · expo · depth
 * value = mean of q over the frames.
 */
import { EngineError } from '../contract.js';
import type { Frame, VideoProbe } from '../contract.js';
import type { DimensionMethod, MethodOutcome, MethodRun } from '../method-contract.js';
import { frameToGrey } from '../image/convert.js';
import { resizeAreaGrey, resizeBilinearGrey } from '../image/resize.js';
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

/** Longer side at which noise is measured: VBench's `longer` rule for MUSIQ's input. */
export const ANALYSIS_MAX_SIDE = 512;
/** The frame is cut into GRID × GRID tiles; sharpness is read on the sharpest SHARP_TILES of them. */
const GRID = 4;
/**
 * Longer sides at which sharpness is read: MUSIQ's two fixed scales (its third is the input itself,
 * which would make the value depend on the clip's resolution). Frames are area-downscaled or
 * bilinearly upscaled to them, as MUSIQ resizes its input both ways.
 */
export const MUSIQ_SCALES = [224, 384, 0] as const;
const SHARP_TILES = 4;
/** Blockiness a visually lossless encode already shows (x264 CRF 12 on the camera sources: 0.06–0.075). */
export const BLOCK_DEAD_ZONE = 0.1;

/** VBench's resize rule: longer side > 512 → scaled to 512 (area), else unchanged. */
export function analysisFrame(grey: GreyImage): GreyImage {
  const long = Math.max(grey.width, grey.height);
  if (long <= ANALYSIS_MAX_SIDE) return grey;
  const s = ANALYSIS_MAX_SIDE / long;
  return resizeAreaGrey(
    grey,
    Math.max(1, Math.round(grey.width * s)),
    Math.max(1, Math.round(grey.height * s)),
  );
}

/** The frame with its longer side at `side`: area average when shrinking, bilinear when enlarging. */
export function atLongerSide(grey: GreyImage, side: number): GreyImage {
  const long = Math.max(grey.width, grey.height);
  if (long === side) return grey;
  const w = Math.max(1, Math.round((grey.width * side) / long));
  const h = Math.max(1, Math.round((grey.height * side) / long));
  return long > side ? resizeAreaGrey(grey, w, h) : resizeBilinearGrey(grey, w, h);
}

/**
 * Descreening (inverse halftoning) of a palette-coded frame: a 5-tap binomial low-pass
 * [1 4 6 4 1]/16 along each axis, same size. Dithering is a pattern of one or two pixels; the
 * filter removes it and leaves coarser detail, so dithering is not read as noise.
 */
export function descreen(img: GreyImage): GreyImage {
  const { width: w, height: h, data } = img;
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  const xm = w - 1;
  const ym = h - 1;
  const k = [0.0625, 0.25, 0.375, 0.25, 0.0625];
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let t = -2; t <= 2; t++) {
        const xx = x + t < 0 ? 0 : x + t > xm ? xm : x + t;
        v += k[t + 2]! * data[row + xx]!;
      }
      tmp[row + x] = v;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let t = -2; t <= 2; t++) {
        const yy = y + t < 0 ? 0 : y + t > ym ? ym : y + t;
        v += k[t + 2]! * tmp[yy * w + x]!;
      }
      out[y * w + x] = v;
    }
  }
  return { width: w, height: h, data: out };
}

/** Blur effect of the in-focus part: the mean over the sharpest tiles (shallow depth of field is not blur). */
export function focusBlur(img: GreyImage, tau: number): number {
  const { width: w, height: h, data } = img;
  if (w < GRID * 8 || h < GRID * 8) return blurEffect(img, tau);
  const values: number[] = [];
  for (let ty = 0; ty < GRID; ty++) {
    const y0 = Math.floor((ty * h) / GRID);
    const y1 = Math.floor(((ty + 1) * h) / GRID);
    for (let tx = 0; tx < GRID; tx++) {
      const x0 = Math.floor((tx * w) / GRID);
      const x1 = Math.floor(((tx + 1) * w) / GRID);
      const tw = x1 - x0;
      const th = y1 - y0;
      const tile = new Float32Array(tw * th);
      for (let y = 0; y < th; y++) tile.set(data.subarray((y0 + y) * w + x0, (y0 + y) * w + x1), y * tw);
      values.push(blurEffect({ width: tw, height: th, data: tile }, tau));
    }
  }
  values.sort((a, b) => a - b);
  return values.slice(0, SHARP_TILES).reduce((a, b) => a + b, 0) / SHARP_TILES;
}

/**
 * `palette`: the clip is palette-coded (GIF), whose dithering is a property of the format, not of
 * the generator. Such frames are descreened first (`descreen`), the usual inverse-halftoning
 * step, so dithering is read neither as noise nor as detail.
 */
export function imagingComponents(grey: GreyImage, palette = false): ImagingComponents {
  const base = palette ? descreen(grey) : grey;
  const analysis = analysisFrame(base);
  const noise = whiteNoiseSigma(analysis, true);
  const long = Math.max(analysis.width, analysis.height);
  let blur = 0;
  for (const side of MUSIQ_SCALES) {
    const img = side === 0 ? analysis : atLongerSide(analysis, side);
    blur += focusBlur(img, 2.8 * noise * (side === 0 ? 1 : Math.min(1, side / long))) / MUSIQ_SCALES.length;
  }
  const b = blockiness(grey);
  const { mean, std, clipped } = exposureStats(grey);
  // The blur effect on its published linear scale (0 sharp … 1 blurred): no sigmoid, whose flat top
  // hid a mild blur behind the noise it removes.
  const sharp = 1 - blur;
  const clean = 1 / (1 + (noise / 4) ** 2);
  const block = Math.exp(-4 * Math.max(0, b - BLOCK_DEAD_ZONE));
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

/**
 * Colour depth of a palette frame: min(1, log2(N)/8), N the number of distinct RGB colours in it.
 * Posterisation (false contours, coarse dithering) is a loss a full 256-colour palette barely
 * shows; 64 colours read 0.75, 16 colours 0.5. Frames of other codecs have far more than 256
 * colours and are not counted (1).
 */
export function paletteDepth(rgb: Uint8Array): number {
  const seen = new Set<number>();
  for (let i = 0; i + 2 < rgb.length; i += 3) {
    seen.add((rgb[i]! << 16) | (rgb[i + 1]! << 8) | rgb[i + 2]!);
    if (seen.size >= 256) return 1;
  }
  return seen.size > 1 ? Math.min(1, Math.log2(seen.size) / 8) : 0;
}

/** Codecs whose frames are palette-indexed (at most 256 colours, usually dithered). */
export function isPaletteCodec(codec: string): boolean {
  return codec === 'gif';
}

export const imagingQualityLite: DimensionMethod = {
  dimension: 'imaging_quality',
  id: 'lite',
  version: '3',
  frames: () => nativeRequest(),
  start: (context) => new ImagingRun(context.probe),
};

class ImagingRun implements MethodRun {
  private readonly guard = new FrameSizeGuard('imaging_quality', 3);
  private readonly picker: FramePicker;
  private readonly indices: number[] = [];
  private readonly sums = { quality: 0, blur: 0, noise: 0, blockiness: 0, exposure: 0, depth: 0 };
  private grey: GreyImage | undefined;

  private readonly palette: boolean;

  constructor(probe: VideoProbe) {
    this.picker = new FramePicker(probe, IMAGING_FRAMES);
    this.palette = isPaletteCodec(probe.codec);
  }

  push(frame: Frame): void {
    this.guard.check(frame);
    if (!this.picker.next(frame)) return;
    this.score(frame);
  }

  private score(frame: Frame): void {
    this.grey = frameToGrey(frame, this.grey);
    const c = imagingComponents(this.grey, this.palette);
    const depth = this.palette && frame.channels === 3 ? paletteDepth(frame.data) : 1;
    this.sums.quality += c.quality * depth;
    this.sums.depth += depth;
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
        descreened: this.palette,
        paletteDepth: this.sums.depth / n,
        frames: n,
      },
    };
  }
}
