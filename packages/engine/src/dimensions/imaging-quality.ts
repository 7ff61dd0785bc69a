/**
 * imaging_quality, method `lite` (version 4): a classical no-reference quality measure in [0, 1]
 * (a stand-in for MUSIQ-SPAQ). 8 frames (VBench's "middle" sampler), decoded at native
 * resolution, luma. The analysis frame is VBench's `longer` rule for MUSIQ (longer side > 512 →
 * area-scaled to 512). Everything but blockiness is measured at MUSIQ's fixed scales, so that the
 * measure judges the picture, not the file's resolution or container:
 *   σ_n     white-noise σ referred to MUSIQ's 224 scale: min over the analysis frame and two 2×2
 *           halvings of Immerkær's σ, each scaled by the white-noise law of an area resize
 *   sharp   mean over MUSIQ's scales the clip has real data for (longer side 224, 384, and the
 *           analysis frame; none enlarged) of exp(−(σ_b/σ_JNB)^3.6): σ_b the edges' blur σ from
 *           the gradient energy of the frame and of its σ = 1 re-blur (the energy of the noise
 *           measured at that scale removed), σ_JNB = 3/2.56 px, Ferzli & Karam's just-noticeable
 *           blur
 *   clean   = 1 / (1 + (σ_n/4)²)
 *   block   = exp(−4·max(0, B − 0.1))         B: 8×8-grid blockiness at native resolution
 *   expo    = (1 − clipped)·exp(−½((μ − 118)/80)²)               at the 224 scale
 *   contrast= min(1, √(σ_Y² − σ_n²) / (255/√12))                 at the 224 scale
 *   depth   = min(1, log2(colours)/8) for a palette frame, else 1
 *   q       = sharp · clean · block · expo · contrast · depth
 * value = mean of q over the frames.
 */
import { EngineError } from '../contract.js';
import type { Frame, VideoProbe } from '../contract.js';
import type { DimensionMethod, FrameBand, MethodOutcome, MethodRun } from '../method-contract.js';
import { resizeAreaGrey, resizeBilinearGrey } from '../image/resize.js';
import { blockiness, exposureStats, noiseSigma } from '../image/quality.js';
import { edgeBlurSigma, noiseLevels, sharpnessFromBlur, whiteNoiseFromLevels } from '../image/sharpness.js';
import type { GreyImage } from '../image/types.js';
import { BandGuard, FrameSizeGuard } from './common.js';
import { ANALYSIS_MAX_SIDE, analysisSize, NativeAnalyzer, nativeSummary } from './native-analysis.js';
import type { NativeSummary } from './native-analysis.js';
import { FramePicker, nativeRequest } from './working.js';

export { ANALYSIS_MAX_SIDE };

export const IMAGING_FRAMES = 8;

export interface ImagingComponents {
  /** Edge blur σ (px) at each scale used, in the order of `scales`. */
  blurSigmas: number[];
  scales: number[];
  /** White-noise σ referred to the 224 scale. */
  noise: number;
  blockiness: number;
  mean: number;
  std: number;
  clipped: number;
  sharp: number;
  clean: number;
  block: number;
  exposure: number;
  contrast: number;
  /** sharp · clean · block · exposure · contrast (the palette depth is applied per frame by the run). */
  quality: number;
}

/** MUSIQ's two fixed scales (longer side); its third scale is the analysis frame itself. */
export const MUSIQ_SCALES = [224, 384] as const;
/** The scale noise, exposure and contrast are read at: MUSIQ's coarsest, which every clip fills. */
export const REFERENCE_SIDE = 224;
/** Blockiness a visually lossless encode already shows (x264 CRF 12 on the camera sources: 0.06–0.075). */
export const BLOCK_DEAD_ZONE = 0.1;
/** Luma standard deviation of a frame whose tones fill 0..255 evenly (a uniform histogram): 255/√12. */
export const FULL_CONTRAST_STD = 255 / Math.sqrt(12);

/** VBench's resize rule: longer side > 512 → scaled to 512 (area), else unchanged. */
export function analysisFrame(grey: GreyImage): GreyImage {
  const size = analysisSize(grey.width, grey.height);
  if (size.width === grey.width && size.height === grey.height) return grey;
  return resizeAreaGrey(grey, size.width, size.height);
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
 * The scales (longer sides) sharpness is read at: MUSIQ's 224 and 384 and the analysis frame
 * (≤ 512), keeping only those the analysis frame reaches, so no frame is enlarged (an enlarged
 * frame holds no detail the file does not have; a README GIF downscaled from the generator's
 * output is judged at the sizes it has). A frame smaller than 224 is read at its own size.
 */
export function sharpnessScales(analysisLongerSide: number): number[] {
  const out: number[] = [];
  for (const s of [...MUSIQ_SCALES, analysisLongerSide])
    if (s <= analysisLongerSide && !out.includes(s)) out.push(s);
  return out.length > 0 ? out : [analysisLongerSide];
}

export function imagingComponents(grey: GreyImage): ImagingComponents {
  const analysis = analysisFrame(grey);
  return imagingFromSummary({ analysis, blockiness: blockiness(grey), noise: noiseLevels(analysis) });
}

/** `imagingComponents` from what it reads of the native frame (`NativeSummary`). */
export function imagingFromSummary(summary: NativeSummary): ImagingComponents {
  const { analysis } = summary;
  const long = Math.max(analysis.width, analysis.height);
  const analysisNoise = summary.noise.length > 0 ? summary.noise[0]! : noiseSigma(analysis, true);
  const noise = whiteNoiseFromLevels(summary.noise, long, REFERENCE_SIDE);
  const scales = sharpnessScales(long);
  const blurSigmas: number[] = [];
  let sharp = 0;
  const refSide = Math.min(REFERENCE_SIDE, long);
  let ref: GreyImage | null = null;
  for (const side of scales) {
    const img = side === long ? analysis : atLongerSide(analysis, side);
    if (side === refSide) ref = img;
    // The noise energy to remove is the noise this image carries, measured on it (Immerkær): a
    // palette's dither or an encoder's correlated noise does not follow the white-noise law, and
    // under-removing it would read noise as detail.
    const sigma = edgeBlurSigma(img, side === long ? analysisNoise : noiseSigma(img, true));
    blurSigmas.push(sigma);
    sharp += sharpnessFromBlur(sigma) / scales.length;
  }
  ref ??= atLongerSide(analysis, refSide);
  const b = summary.blockiness;
  const { mean, std, clipped } = exposureStats(ref);
  const clean = 1 / (1 + (noise / 4) ** 2);
  const block = Math.exp(-4 * Math.max(0, b - BLOCK_DEAD_ZONE));
  const exposure = (1 - clipped) * Math.exp(-0.5 * ((mean - 118) / 80) ** 2);
  // Noise adds its variance to the picture's: only the rest is contrast.
  const contrast = Math.min(1, Math.sqrt(Math.max(0, std * std - noise * noise)) / FULL_CONTRAST_STD);
  return {
    blurSigmas,
    scales,
    noise,
    blockiness: b,
    mean,
    std,
    clipped,
    sharp,
    clean,
    block,
    exposure,
    contrast,
    quality: sharp * clean * block * exposure * contrast,
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
  addColours(seen, rgb);
  return depthOf(seen);
}

/** Adds the RGB colours of `rgb` to `seen`, stopping once it holds 256 (a full palette). */
function addColours(seen: Set<number>, rgb: Uint8Array): void {
  for (let i = 0; i + 2 < rgb.length && seen.size < 256; i += 3) {
    seen.add((rgb[i]! << 16) | (rgb[i + 1]! << 8) | rgb[i + 2]!);
  }
}

function depthOf(seen: Set<number>): number {
  if (seen.size >= 256) return 1;
  return seen.size > 1 ? Math.min(1, Math.log2(seen.size) / 8) : 0;
}

/** Codecs whose frames are palette-indexed (at most 256 colours, usually dithered). */
export function isPaletteCodec(codec: string): boolean {
  return codec === 'gif';
}

export const imagingQualityLite: DimensionMethod = {
  dimension: 'imaging_quality',
  id: 'lite',
  version: '4',
  frames: () => nativeRequest(),
  start: (context) => new ImagingRun(context.probe),
  releasesFrames: true,
};

class ImagingRun implements MethodRun {
  private readonly guard = new FrameSizeGuard('imaging_quality', 3);
  private readonly picker: FramePicker;
  private readonly indices: number[] = [];
  private readonly sums = {
    quality: 0,
    sharp: 0,
    blurSigma: 0,
    noise: 0,
    blockiness: 0,
    exposure: 0,
    contrast: 0,
    depth: 0,
  };
  private scales: number[] = [];
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

  private readonly bandGuard = new BandGuard('imaging_quality', 3);
  private banded: { native: NativeAnalyzer; colours: Set<number> | null } | null = null;

  /**
   * A large frame, a band at a time: a picked frame's native summary (and, for a palette codec,
   * its colours) from its rows as they arrive; the same values as from the whole frame. A frame
   * is picked by its first band; the spare frame of `finish` is not kept here.
   */
  pushBand(band: FrameBand): void {
    this.bandGuard.check(band);
    if (band.y === 0) {
      const picked = this.picker.next({ ...band, data: new Uint8Array(0) });
      this.banded = picked
        ? {
            native: new NativeAnalyzer(band.width, band.height, 3),
            colours: this.palette ? new Set<number>() : null,
          }
        : null;
    }
    const b = this.banded;
    if (!b) return;
    b.native.rows(band.data, band.y, band.rows);
    if (b.colours) addColours(b.colours, band.data);
    if (!band.last) return;
    this.banded = null;
    this.add(b.native.finish(), b.colours ? depthOf(b.colours) : 1, band.index);
  }

  private score(frame: Frame): void {
    const depth = this.palette && frame.channels === 3 ? paletteDepth(frame.data) : 1;
    this.add(nativeSummary(frame), depth, frame.index);
  }

  private add(summary: NativeSummary, depth: number, index: number): void {
    const c = imagingFromSummary(summary);
    this.sums.quality += c.quality * depth;
    this.sums.sharp += c.sharp;
    // The blur σ at the first (coarsest) scale, capped so that a frame without detail stays finite.
    this.sums.blurSigma += Math.min(c.blurSigmas[0] ?? Infinity, 10);
    this.sums.noise += c.noise;
    this.sums.blockiness += c.blockiness;
    this.sums.exposure += c.exposure;
    this.sums.contrast += c.contrast;
    this.sums.depth += depth;
    this.scales = c.scales;
    this.indices.push(index);
  }

  finish(): MethodOutcome {
    const spare = this.picker.fallback();
    if (spare && spare.data.length > 0) this.score(spare);
    const n = this.indices.length;
    if (n < 1) throw new EngineError('too_few_frames', 'imaging_quality received no frames');
    return {
      value: this.sums.quality / n,
      indices: this.indices,
      details: {
        sharp: this.sums.sharp / n,
        blurSigma: this.sums.blurSigma / n,
        noiseSigma: this.sums.noise / n,
        blockiness: this.sums.blockiness / n,
        exposure: this.sums.exposure / n,
        contrast: this.sums.contrast / n,
        paletteDepth: this.sums.depth / n,
        scales: this.scales.join(','),
        frames: n,
      },
    };
  }
}
