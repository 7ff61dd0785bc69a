/**
 * imaging_quality `lite` version 3 and aesthetic_quality `lite` version 2 (issue #13): direction
 * on degradations, robustness to palette (GIF) dithering, and resolution invariance, on a
 * procedural scene (no fitting to corpus clips). Fast: a handful of 640×360 frames.
 */
import { describe, expect, it } from 'vitest';
import { aestheticComponents, aestheticQualityLite } from '../src/dimensions/aesthetic-quality.js';
import { imagingComponents, imagingQualityLite, paletteDepth } from '../src/dimensions/imaging-quality.js';
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

const q = (img: GreyImage, palette = false): number => imagingComponents(img, palette).quality;

describe('imaging_quality lite v3', () => {
  const clean = scene();
  const q0 = q(clean);

  it('carries version 3', () => {
    expect(imagingQualityLite.version).toBe('3');
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

  it('is robust to palette dithering (descreened), and counts the number of colours', () => {
    const dithered = bayerDither(clean, 16);
    const robust = q(dithered, true);
    expect(Math.abs(robust - q0), `${q0} → ${robust}`).toBeLessThanOrEqual(0.1);
    // Read as a normal frame, the dither pattern is mistaken for noise and costs more.
    expect(Math.abs(q(dithered, false) - q0)).toBeGreaterThan(Math.abs(robust - q0));
    const rgb = (levels: number): Uint8Array => {
      const out = new Uint8Array(3 * 64 * 64);
      for (let i = 0; i < 64 * 64; i++) out.fill(Math.floor((i * levels) / 4096) * 3, 3 * i, 3 * i + 3);
      return out;
    };
    expect(paletteDepth(rgb(256))).toBe(1);
    expect(paletteDepth(rgb(64))).toBeCloseTo(0.75, 6);
    expect(paletteDepth(rgb(16))).toBeCloseTo(0.5, 6);
  });

  it('is resolution invariant: 640 px and its 320 px area downscale agree within 0.05', () => {
    const half = resizeAreaGrey(clean, W / 2, H / 2);
    expect(Math.abs(q(half) - q0), `${q0} vs ${q(half)}`).toBeLessThanOrEqual(0.05);
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

const a = (img: GreyImage): number => aestheticComponents(tinted(img), img).aesthetic;

describe('aesthetic_quality lite v2', () => {
  // The aesthetic proxy reads the shared ≤ 256 px decode.
  const clean = resizeAreaGrey(scene(11), 256, 144);
  const a0 = a(clean);

  it('carries version 2', () => {
    expect(aestheticQualityLite.version).toBe('2');
  });

  it('falls with blur and with noise', () => {
    const blur = [0.5, 1, 2].map((s) => a(gaussianBlur(clean, s)));
    const noise = [4, 8, 16].map((s) => a(withNoise(clean, s)));
    for (const series of [blur, noise]) {
      const all = [a0, ...series];
      for (let i = 1; i < all.length; i++) expect(all[i]!, all.join(' → ')).toBeLessThan(all[i - 1]!);
      expect(a0 - series[2]!).toBeGreaterThan(0.02);
    }
  });
});
