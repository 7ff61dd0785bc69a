/**
 * imaging_quality `lite` version 4 and aesthetic_quality `lite` (issue #13): direction on
 * degradations, robustness to palette (GIF) dithering, and resolution invariance, on a procedural
 * scene (no fitting to corpus clips); the sharpness and noise primitives against closed forms.
 * Fast: a handful of 640×360 frames.
 */
import { describe, expect, it } from 'vitest';
import {
  aestheticComponents,
  aestheticQualityLite,
  clipView,
  viewNoise,
} from '../src/dimensions/aesthetic-quality.js';
import {
  imagingComponents,
  imagingQualityLite,
  paletteDepth,
  sharpnessScales,
} from '../src/dimensions/imaging-quality.js';
import { noiseSigma } from '../src/image/quality.js';
import {
  convolveSeparable,
  edgeBlurSigma,
  gaussianTaps,
  gradientNoiseGain,
  JNB_SIGMA,
  sharpnessFromBlur,
  whiteNoiseAt,
} from '../src/image/sharpness.js';
import { resizeAreaGrey } from '../src/image/resize.js';
import type { GreyImage } from '../src/image/types.js';
import { prng } from './validation-scenes.js';

const W = 640;
const H = 360;

/** Flat regions with hard and soft edges plus fine texture: a stand-in for a sharp photograph. */
function scene(seed = 7): GreyImage {
  const rand = prng(seed);
  const data = new Float32Array(W * H);
  for (let i = 0; i < data.length; i++) data[i] = 110;
  for (let k = 0; k < 40; k++) {
    const cx = rand() * W;
    const cy = rand() * H;
    const r = 10 + rand() * 70;
    const v = 30 + rand() * 190;
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(H, Math.ceil(cy + r)); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(W, Math.ceil(cx + r)); x++) {
        if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) data[y * W + x] = v;
      }
    }
  }
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      // Texture coarser than a few pixels: Immerkær's estimator reads a near-Nyquist pattern as noise
      // (a documented limit), which is not what this scene is for.
      data[y * W + x] = data[y * W + x]! + 12 * Math.sin(x * 0.25 + y * 0.1) * Math.sin(y * 0.2);
    }
  }
  return { width: W, height: H, data };
}

function gaussianBlur(img: GreyImage, sigma: number): GreyImage {
  const r = Math.ceil(3 * sigma);
  const k: number[] = [];
  let sum = 0;
  for (let t = -r; t <= r; t++) {
    const v = Math.exp(-(t * t) / (2 * sigma * sigma));
    k.push(v);
    sum += v;
  }
  const { width: w, height: h, data } = img;
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let a = 0;
      for (let t = -r; t <= r; t++) a += k[t + r]! * data[y * w + Math.min(w - 1, Math.max(0, x + t))]!;
      tmp[y * w + x] = a / sum;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let a = 0;
      for (let t = -r; t <= r; t++) a += k[t + r]! * tmp[Math.min(h - 1, Math.max(0, y + t)) * w + x]!;
      out[y * w + x] = a / sum;
    }
  return { width: w, height: h, data: out };
}

function withNoise(img: GreyImage, sigma: number, seed = 3): GreyImage {
  const rand = prng(seed);
  const data = new Float32Array(img.data.length);
  for (let i = 0; i < data.length; i++) {
    const n = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    data[i] = Math.min(255, Math.max(0, img.data[i]! + sigma * n));
  }
  return { ...img, data };
}

/** Ordered (8×8 Bayer) dithering to `levels` grey levels, as a palette GIF encoder does. */
function bayerDither(img: GreyImage, levels: number): GreyImage {
  const b2 = [
    [0, 2],
    [3, 1],
  ];
  const bayer = (x: number, y: number): number => {
    let v = 0;
    for (let bit = 0; bit < 3; bit++) v = 4 * v + b2[(y >> bit) & 1]![(x >> bit) & 1]!;
    return (v + 0.5) / 64 - 0.5;
  };
  const step = 255 / (levels - 1);
  const data = new Float32Array(img.data.length);
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const v = img.data[y * img.width + x]! / step + bayer(x, y);
      data[y * img.width + x] = Math.min(levels - 1, Math.max(0, Math.round(v))) * step;
    }
  return { ...img, data };
}

const q = (img: GreyImage): number => imagingComponents(img).quality;

/** Random rectangles of random grey: step edges of every contrast, nothing else. */
function steps(w: number, h: number, seed = 5): GreyImage {
  const rand = prng(seed);
  const data = new Float32Array(w * h).fill(100);
  for (let k = 0; k < 24; k++) {
    const x0 = rand() * w;
    const y0 = rand() * h;
    const x1 = x0 + 10 + rand() * 60;
    const y1 = y0 + 10 + rand() * 40;
    const v = 30 + rand() * 190;
    for (let y = Math.max(0, Math.floor(y0)); y < Math.min(h, Math.ceil(y1)); y++)
      for (let x = Math.max(0, Math.floor(x0)); x < Math.min(w, Math.ceil(x1)); x++) data[y * w + x] = v;
  }
  return { width: w, height: h, data };
}

describe('sharpness primitives', () => {
  it('edgeBlurSigma reads the blur σ of Gaussian-blurred step edges (above the pixel grid’s own ≈ 0.5 px)', () => {
    const img = steps(224, 126);
    const at = (s: number): number => edgeBlurSigma(s === 0 ? img : convolveSeparable(img, gaussianTaps(s)));
    const measured = [0, 1, 1.5, 2, 3].map(at);
    for (let i = 1; i < measured.length; i++) expect(measured[i]!).toBeGreaterThan(measured[i - 1]!);
    // σ₀ = 1 re-blur, closed form σ = σ₀/√((E/E₁)² − 1): within 15 % once the blur dominates the grid.
    expect(measured[2]!).toBeCloseTo(1.5, 0);
    expect(Math.abs(measured[3]! - 2) / 2).toBeLessThan(0.15);
    expect(Math.abs(measured[4]! - 3) / 3).toBeLessThan(0.15);
    expect(edgeBlurSigma({ width: 64, height: 64, data: new Float32Array(64 * 64).fill(90) })).toBe(Infinity);
  });

  it('removes the gradient energy of white noise of known σ, so noise does not read as detail', () => {
    const img = convolveSeparable(steps(224, 126), gaussianTaps(1.5));
    const noisy = withNoise(img, 6);
    const corrected = edgeBlurSigma(noisy, 6);
    expect(edgeBlurSigma(noisy, 0)).toBeLessThan(0.75 * corrected); // uncorrected: noise looks sharp
    expect(Math.abs(corrected - edgeBlurSigma(img)) / edgeBlurSigma(img)).toBeLessThan(0.15);
    expect(gradientNoiseGain(null)).toBeCloseTo(1, 12); // E|∇n|² = σ² for central differences
  });

  it('sharpnessFromBlur is Ferzli & Karam’s JNB: e^-1 at the just-noticeable σ, 1 at σ = 0', () => {
    expect(sharpnessFromBlur(0)).toBe(1);
    expect(sharpnessFromBlur(JNB_SIGMA)).toBeCloseTo(Math.exp(-1), 12);
    expect(sharpnessFromBlur(Infinity)).toBe(0);
  });

  it('whiteNoiseAt follows the white-noise law of an area resize and ignores a fine dither pattern', () => {
    const flat: GreyImage = { width: 512, height: 288, data: new Float32Array(512 * 288).fill(120) };
    const noisy = withNoise(flat, 8);
    // The minimum of three estimates: never above the single one, and within 10 % of the truth.
    expect(whiteNoiseAt(noisy, 512)).toBeLessThanOrEqual(noiseSigma(noisy, true));
    expect(Math.abs(whiteNoiseAt(noisy, 512) - 8)).toBeLessThan(0.8);
    expect(Math.abs(whiteNoiseAt(noisy, 224) - (8 * 224) / 512)).toBeLessThan(0.1 * ((8 * 224) / 512));
    // A 2-pixel checkerboard of ±6 (ordered dither): gone after one 2×2 halving.
    const checker = {
      ...flat,
      data: flat.data.map((v, i) => v + (((i % 512) + Math.floor(i / 512)) & 1 ? 6 : -6)),
    };
    expect(noiseSigma(checker, true)).toBeGreaterThan(3);
    expect(whiteNoiseAt(checker, 224)).toBeLessThan(0.05);
  });
});

describe('imaging_quality lite v4', () => {
  const clean = scene();
  const q0 = q(clean);

  it('carries version 4', () => {
    expect(imagingQualityLite.version).toBe('4');
  });

  it('falls with blur and with noise, in proportion', () => {
    const blur = [1, 2, 4].map((s) => q(gaussianBlur(clean, s)));
    const noise = [4, 8, 16].map((s) => q(withNoise(clean, s)));
    for (const series of [blur, noise]) {
      const all = [q0, ...series];
      for (let i = 1; i < all.length; i++) expect(all[i]!, all.join(' → ')).toBeLessThan(all[i - 1]!);
      expect(q0 - series[2]!).toBeGreaterThan(0.1);
    }
  });

  it('reads sharpness only at MUSIQ scales the frame fills (224, 384, the ≤ 512 frame; never enlarged)', () => {
    expect(sharpnessScales(512)).toEqual([224, 384, 512]);
    expect(sharpnessScales(320)).toEqual([224, 320]);
    expect(sharpnessScales(256)).toEqual([224, 256]);
    expect(sharpnessScales(160)).toEqual([160]);
  });

  it('is robust to fine palette dithering, never reads a dithered frame as cleaner, and counts colours', () => {
    const dithered = q(bayerDither(clean, 64));
    expect(Math.abs(dithered - q0), `${q0} → ${dithered}`).toBeLessThanOrEqual(0.1);
    expect(imagingComponents(bayerDither(clean, 64)).noise).toBeGreaterThanOrEqual(
      imagingComponents(clean).noise,
    );
    // Coarser palettes cost more.
    expect(q(bayerDither(clean, 16))).toBeLessThan(dithered);
    const rgb = (levels: number): Uint8Array => {
      const out = new Uint8Array(3 * 64 * 64);
      for (let i = 0; i < 64 * 64; i++) out.fill(Math.floor((i * levels) / 4096) * 3, 3 * i, 3 * i + 3);
      return out;
    };
    expect(paletteDepth(rgb(256))).toBe(1);
    expect(paletteDepth(rgb(64))).toBeCloseTo(0.75, 6);
    expect(paletteDepth(rgb(16))).toBeCloseTo(0.5, 6);
  });

  it('is resolution invariant: 640 px and its 320 px and 256 px area downscales agree within 0.05', () => {
    for (const [w, h] of [
      [W / 2, H / 2],
      [256, 144],
    ] as const) {
      const small = q(resizeAreaGrey(clean, w, h));
      expect(Math.abs(small - q0), `${q0} vs ${small} at ${w}`).toBeLessThanOrEqual(0.05);
    }
  });
});

/** A colour version of a grey frame (warm highlights, cool shadows), as the aesthetic proxy reads RGB. */
function tinted(img: GreyImage): Float32Array {
  const rgb = new Float32Array(img.data.length * 3);
  for (let i = 0; i < img.data.length; i++) {
    const v = img.data[i]!;
    rgb[3 * i] = Math.min(255, v * 1.1 + 8);
    rgb[3 * i + 1] = v;
    rgb[3 * i + 2] = Math.max(0, v * 0.85 + 20 - (v > 128 ? 25 : 0));
  }
  return rgb;
}

/** Aesthetic value of a grey scene (tinted to colour) through the method's own CLIP view and noise referral. */
function a(img: GreyImage): number {
  const rgb = tinted(img);
  const bytes = Uint8Array.from(rgb, (v) => Math.max(0, Math.min(255, Math.round(v))));
  const { view, scale } = clipView(bytes, img.width, img.height);
  return aestheticComponents(view, viewNoise(img, scale)).aesthetic;
}

describe('aesthetic_quality lite v3', () => {
  const clean = scene(11);
  const a0 = a(clean);

  it('carries version 3', () => {
    expect(aestheticQualityLite.version).toBe('3');
  });

  it('sees the frame as CLIP does: shorter side 224 (never enlarged), centred square', () => {
    const rgb = new Uint8Array(640 * 360 * 3);
    for (let x = 0; x < 640; x++) for (let y = 0; y < 360; y++) rgb[(y * 640 + x) * 3] = x < 320 ? 0 : 255;
    const { view, scale } = clipView(rgb, 640, 360);
    expect([view.width, view.height]).toEqual([224, 224]);
    expect(scale).toBeCloseTo(224 / 360, 12);
    // The crop is centred: the red step sits in the middle of the view.
    expect(view.data[(100 * 224 + 100) * 3]).toBeCloseTo(0, 3);
    expect(view.data[(100 * 224 + 124) * 3]).toBeCloseTo(255, 3);
    expect(clipView(new Uint8Array(200 * 100 * 3), 200, 100).view.width).toBe(100);
  });

  it('falls with blur and with noise; a mild blur does not raise it', () => {
    const blur = [1, 2, 4].map((sg) => a(gaussianBlur(clean, sg)));
    const noise = [4, 8, 16].map((sg) => a(withNoise(clean, sg)));
    for (const series of [blur, noise]) {
      const all = [a0, ...series];
      for (let i = 1; i < all.length; i++) expect(all[i]!, all.join(' → ')).toBeLessThan(all[i - 1]!);
      expect(a0 - series[2]!).toBeGreaterThan(0.02);
    }
  });

  it('is resolution invariant: 640 px and its 320 px area downscale agree within 0.05', () => {
    const half = resizeAreaGrey(clean, W / 2, H / 2);
    expect(Math.abs(a(half) - a0)).toBeLessThanOrEqual(0.05);
  });
});
