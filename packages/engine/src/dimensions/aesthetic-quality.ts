/**
 * aesthetic_quality, method `lite` (version 3): a model-free PROXY for the LAION aesthetic
 * predictor, not a learned aesthetic model. 8 frames (VBench's "middle" sampler), each seen as the
 * LAION head's CLIP sees it: shorter side 224 (area-averaged from the native frame, never
 * enlarged), centred square crop (VBench's `clip_transform(224)`). Per frame, five classical
 * features on [0, 1] (the feature families of Datta et al., ECCV 2006, and Ke et al., CVPR 2006),
 * weighted equally:
 *   colour   = 1 − exp(−M/30)                M: Hasler–Süsstrunk colourfulness of the 2×2-mean
 *                                            half-size view (noise does not read as colour)
 *   contrast = 1 − exp(−σ_s/30)              σ_s = √(σ_Y² − σ_n²): luma σ without the noise's
 *   exposure = (1 − clipped)·exp(−½((μ − 118)/70)²)
 *   sharp    = exp(−(σ_b/σ_JNB)^3.6)         σ_b: the view's edge blur σ (gradient energy vs a
 *                                            σ = 1 re-blur, its own noise removed), σ_JNB =
 *                                            3/2.56 px: Ferzli & Karam's just-noticeable blur
 *   clean    = 1 / (1 + (σ_n/5)²)            σ_n: white-noise σ measured on the native frame
 *                                            (≤ 512, three scales) and referred to the view's
 *                                            scale by the white-noise law of an area resize
 *   a = (colour + contrast + exposure + sharp + clean)/5
 * value = mean of a over the frames. Version 2 measured on the shared ≤ 256 px decode, where fine
 * texture (fur, gravel) is indistinguishable from noise, so a mild blur that removed it "cleaned"
 * the frame and raised the score; on the native frame texture is least like noise. Version 2's
 * sixth feature, a rule-of-thirds cue from the gradient-energy centroid, moved with texture alone
 * (+0.02 under a ÷2 rescale invisible at 224 px) and was dropped.
 */
import { EngineError } from '../contract.js';
import type { Frame, VideoProbe } from '../contract.js';
import type { DimensionMethod, FrameBand, MethodOutcome, MethodRun } from '../method-contract.js';
import { colourfulness, exposureStats, noiseSigma } from '../image/quality.js';
import { AreaResizer, halveRgb, resizeAreaRgb } from '../image/resize.js';
import type { AreaCrop } from '../image/resize.js';
import { edgeBlurSigma, sharpnessFromBlur, whiteNoiseAt, whiteNoiseFromLevels } from '../image/sharpness.js';
import type { GreyImage, RgbImage } from '../image/types.js';
import { centreCropOffset } from '../preprocess/transforms.js';
import { BandGuard, FrameSizeGuard } from './common.js';
import { analysisFrame } from './imaging-quality.js';
import { NativeAnalyzer, nativeSummary } from './native-analysis.js';
import type { NativeSummary } from './native-analysis.js';
import { FramePicker, greyOf, nativeRequest } from './working.js';

export const AESTHETIC_FRAMES = 8;
/** CLIP's input size (VBench's `clip_transform(224)`: shorter side 224, centre crop 224). */
export const CLIP_SIZE = 224;

export interface AestheticComponents {
  colour: number;
  contrast: number;
  exposure: number;
  sharp: number;
  clean: number;
  aesthetic: number;
}

/**
 * The frame as the LAION head's CLIP sees it: shorter side min(224, shorter side) by area
 * averaging, then the centred square (torchvision's CenterCrop offsets). `scale` is the view's
 * size over the frame's (≤ 1).
 */
export function clipView(
  rgb: Uint8Array | Float32Array,
  width: number,
  height: number,
): { view: RgbImage; scale: number } {
  const { rw, rh, crop, scale } = clipGeometry(width, height);
  return { view: resizeAreaRgb(rgb, width, height, rw, rh, crop), scale };
}

/** `clipView`'s resize (rw × rh), crop and scale for a width × height frame. */
function clipGeometry(
  width: number,
  height: number,
): { rw: number; rh: number; crop: AreaCrop; scale: number } {
  const short = Math.min(width, height);
  const side = Math.min(CLIP_SIZE, short);
  const scale = side / short;
  const rw = width <= height ? side : Math.max(side, Math.trunc((side * width) / height));
  const rh = width <= height ? Math.max(side, Math.trunc((side * height) / width)) : side;
  const crop = {
    left: centreCropOffset(rw, side),
    top: centreCropOffset(rh, side),
    width: side,
    height: side,
  };
  return { rw, rh, crop, scale };
}

/** `clipView` of a frame fed a band of rows at a time (the same values). */
class ClipViewRows {
  private readonly resizer: AreaResizer;
  readonly scale: number;
  constructor(
    private readonly width: number,
    height: number,
  ) {
    const { rw, rh, crop, scale } = clipGeometry(width, height);
    this.resizer = new AreaResizer(width, height, rw, rh, 3, crop);
    this.scale = scale;
  }
  rows(data: Uint8Array, y0: number, rows: number): void {
    for (let r = 0; r < rows; r++) this.resizer.row(y0 + r, data, r * this.width * 3);
  }
  finish(): RgbImage {
    return this.resizer.finish();
  }
}

/**
 * Features of one view. `noise` is the white-noise σ at the view's scale (from the native frame,
 * `viewNoise`); the view's own noise for the sharpness estimate is measured on it.
 */
export function aestheticComponents(view: RgbImage, noise: number): AestheticComponents {
  const grey = greyOf(view);
  const half = halveRgb(view);
  const m = colourfulness(half.data, half.width * half.height);
  const { mean, std, clipped } = exposureStats(grey);
  const colour = 1 - Math.exp(-m / 30);
  const contrast = 1 - Math.exp(-Math.sqrt(Math.max(0, std * std - noise * noise)) / 30);
  const exposure = (1 - clipped) * Math.exp(-0.5 * ((mean - 118) / 70) ** 2);
  const sharp = sharpnessFromBlur(edgeBlurSigma(grey, noiseSigma(grey, true)));
  const clean = 1 / (1 + (noise / 5) ** 2);
  const aesthetic = (colour + contrast + exposure + sharp + clean) / 5;
  return { colour, contrast, exposure, sharp, clean, aesthetic };
}

/**
 * White-noise σ of a native grey frame referred to a view `scale` times its size: measured on
 * VBench's ≤ 512 analysis frame at three scales (`whiteNoiseAt`), where fine texture is least
 * like noise, and carried to the view by the white-noise law.
 */
export function viewNoise(grey: GreyImage, scale: number): number {
  const analysis = analysisFrame(grey);
  return whiteNoiseAt(analysis, Math.max(grey.width, grey.height) * scale);
}

export const aestheticQualityLite: DimensionMethod = {
  dimension: 'aesthetic_quality',
  id: 'lite',
  version: '3',
  frames: () => nativeRequest(),
  start: (context) => new AestheticRun(context.probe),
  releasesFrames: true,
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

  private readonly bandGuard = new BandGuard('aesthetic_quality', 3);
  /** The picked frame being read band by band. */
  private banded: { view: ClipViewRows; native: NativeAnalyzer } | null = null;

  /**
   * A large frame, a band at a time: a picked frame's view and native summary are computed from
   * its rows as they arrive (the same values as from the whole frame). A frame is picked by its
   * first band; the spare frame of `finish` (for a clip shorter than its header) is not kept here.
   */
  pushBand(band: FrameBand): void {
    this.bandGuard.check(band);
    if (band.y === 0) {
      const picked = this.picker.next({ ...band, data: new Uint8Array(0) });
      this.banded = picked
        ? {
            view: new ClipViewRows(band.width, band.height),
            native: new NativeAnalyzer(band.width, band.height, 3),
          }
        : null;
    }
    const b = this.banded;
    if (!b) return;
    b.view.rows(band.data, band.y, band.rows);
    b.native.rows(band.data, band.y, band.rows);
    if (!band.last) return;
    this.banded = null;
    this.add(b.view.finish(), b.view.scale, b.native.finish(), band);
  }

  private score(frame: Frame): void {
    const { view, scale } = clipView(frame.data, frame.width, frame.height);
    // `viewNoise` of the native luma, from the analysis frame imaging quality reads too (shared).
    this.add(view, scale, nativeSummary(frame), frame);
  }

  private add(
    view: RgbImage,
    scale: number,
    summary: NativeSummary,
    frame: { index: number; width: number; height: number },
  ): void {
    const { analysis, noise } = summary;
    const side = Math.max(frame.width, frame.height) * scale;
    const c = aestheticComponents(
      view,
      whiteNoiseFromLevels(noise, Math.max(analysis.width, analysis.height), side),
    );
    for (const k of Object.keys(this.sums) as Array<keyof AestheticComponents>) this.sums[k] += c[k];
    this.indices.push(frame.index);
  }

  finish(): MethodOutcome {
    const spare = this.picker.fallback();
    if (spare && spare.data.length > 0) this.score(spare);
    const n = this.indices.length;
    if (n < 1) throw new EngineError('too_few_frames', 'aesthetic_quality received no frames');
    const details: Record<string, number | string | boolean> = { proxy: true, frames: n };
    for (const k of Object.keys(this.sums) as Array<keyof AestheticComponents>) {
      if (k !== 'aesthetic') details[k] = this.sums[k] / n;
    }
    return { value: this.sums.aesthetic / n, indices: this.indices, details };
  }
}
