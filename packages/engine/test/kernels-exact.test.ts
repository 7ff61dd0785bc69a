/**
 * The fused and unrolled image kernels (issue #24 item 12) against plain reference versions
 * written here the obvious way: each must give the same values bit for bit, on sizes that take
 * every path (unrolled spans and the general one, crops, borders, clipped pixels).
 */
import { describe, expect, it } from 'vitest';
import { noiseSigma } from '../src/image/quality.js';
import { resizeAreaGrey, resizeAreaRgb } from '../src/image/resize.js';
import type { AreaCrop } from '../src/image/resize.js';
import { convolveSeparable, edgeBlurSigma, gaussianTaps } from '../src/image/sharpness.js';
import type { GreyImage } from '../src/image/types.js';

/** Deterministic texture with noise, edges and clipped areas (values 0..255 as float32). */
function textured(w: number, h: number, seed: number): GreyImage {
  const data = new Float32Array(w * h);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    const x = i % w;
    const y = Math.floor(i / w);
    const v =
      128 + 70 * Math.sin(x / 5.3) * Math.cos(y / 3.7) + ((s >>> 16) % 23) - 11 + (x > 0.8 * w ? 150 : 0);
    data[i] = Math.min(255, Math.max(0, v));
  }
  return { width: w, height: h, data };
}

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    out[i] = ((i % 251) + ((s >>> 16) & 63)) & 255;
  }
  return out;
}

/** Immerkær's σ over the smoothest 30 %: responses and gradients kept per pixel, then summed. */
function noiseSigmaReference(img: GreyImage, excludeClipped: boolean): number {
  const { width: w, height: h, data: d } = img;
  if (w < 3 || h < 3) return 0;
  const clipped = (i: number): boolean => d[i]! <= 2 || d[i]! >= 253;
  const resp: number[] = [];
  const grad: number[] = [];
  const hist = new Array<number>(1024).fill(0);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      let near = false;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) near ||= clipped((y + dy) * w + x + dx);
      if (excludeClipped && near) continue;
      const at = (dx: number, dy: number): number => d[(y + dy) * w + x + dx]!;
      const v =
        at(-1, -1) -
        2 * at(0, -1) +
        at(1, -1) -
        2 * at(-1, 0) +
        4 * at(0, 0) -
        2 * at(1, 0) +
        at(-1, 1) -
        2 * at(0, 1) +
        at(1, 1);
      const g = Math.abs(at(1, 0) - at(-1, 0)) + Math.abs(at(0, 1) - at(0, -1));
      const gi = Math.min(1023, Math.floor(g));
      resp.push(Math.fround(Math.abs(v)));
      grad.push(gi);
      hist[gi]!++;
    }
  }
  if (resp.length === 0) return 0;
  const target = Math.max(1, Math.floor(0.3 * resp.length));
  let thr = 0;
  for (let cum = 0; thr < 1024; thr++) if ((cum += hist[thr]!) >= target) break;
  let s = 0;
  let n = 0;
  resp.forEach((r, i) => {
    if (grad[i]! <= thr) {
      s += r;
      n++;
    }
  });
  return (Math.sqrt(Math.PI / 2) / 6) * (s / n);
}

/** Σ|∇I|² (central differences) at least `border` from the edge. */
function gradientEnergyReference(img: GreyImage, border: number): { e: number; n: number } {
  const { width: w, height: h, data: d } = img;
  let e = 0;
  let n = 0;
  for (let y = border; y < h - border; y++) {
    for (let x = border; x < w - border; x++) {
      const gx = 0.5 * (d[y * w + x + 1]! - d[y * w + x - 1]!);
      const gy = 0.5 * (d[(y + 1) * w + x]! - d[(y - 1) * w + x]!);
      e += gx * gx + gy * gy;
      n++;
    }
  }
  return { e, n };
}

/** `edgeBlurSigma` through the whole re-blurred image (`convolveSeparable`). */
function edgeBlurSigmaReference(img: GreyImage, noise: number): number {
  const taps = gaussianTaps(1);
  const border = (taps.length - 1) >> 1;
  if (img.width <= 2 * border + 2 || img.height <= 2 * border + 2) return Infinity;
  const g0 = gradientEnergyReference(img, border);
  const g1 = gradientEnergyReference(convolveSeparable(img, taps), border);
  // The white-noise gains of central differences without and after the re-blur (from the taps).
  const gain = (k: Float32Array): number => {
    const dk = new Float32Array(k.length + 2);
    k.forEach((v, i) => {
      dk[i] = dk[i]! - 0.5 * v;
      dk[i + 2] = dk[i + 2]! + 0.5 * v;
    });
    let sd = 0;
    for (const v of dk) sd += v * v;
    let sk = 0;
    for (const v of k) sk += v * v;
    return 2 * sd * sk;
  };
  const n2 = noise * noise;
  const e0 = g0.e - g0.n * n2 * gain(new Float32Array([1]));
  const e1 = g1.e - g1.n * n2 * gain(taps);
  if (e1 <= 0 || e0 <= e1) return Infinity;
  const r = e0 / e1;
  return 1 / Math.sqrt(r * r - 1);
}

/** Area resize with each output's own taps, accumulated in float32 as the output array holds it. */
function resizeAreaReference(
  src: ArrayLike<number>,
  sw: number,
  sh: number,
  w: number,
  h: number,
  channels: 1 | 3,
  crop: AreaCrop = { left: 0, top: 0, width: w, height: h },
): Float32Array {
  const taps = (inSize: number, outSize: number): Array<Array<[number, number]>> =>
    Array.from({ length: outSize }, (_, d) => {
      const scale = inSize / outSize;
      const a = d * scale;
      const b = a + scale;
      const list: Array<[number, number]> = [];
      for (let i = Math.floor(a); i < Math.min(inSize, Math.ceil(b)); i++) {
        const ov = Math.min(b, i + 1) - Math.max(a, i);
        if (ov > 0) list.push([i, ov]);
      }
      const sum = list.reduce((s, [, ov]) => s + ov, 0);
      return list.map(([i, ov]) => [i, Math.fround(ov / sum)] as [number, number]);
    });
  const xt = taps(sw, w);
  const yt = taps(sh, h);
  const rows = new Map<number, Float32Array>();
  const rowOf = (y: number): Float32Array => {
    let row = rows.get(y);
    if (!row) {
      row = new Float32Array(crop.width * channels);
      for (let x = 0; x < crop.width; x++) {
        for (let c = 0; c < channels; c++) {
          let acc = 0;
          for (const [i, wt] of xt[crop.left + x]!) acc += wt * src[(y * sw + i) * channels + c]!;
          row[x * channels + c] = acc;
        }
      }
      rows.set(y, row);
    }
    return row;
  };
  const out = new Float32Array(crop.width * crop.height * channels);
  for (let y = 0; y < crop.height; y++) {
    for (const [i, wt] of yt[crop.top + y]!) {
      const row = rowOf(i);
      for (let k = 0; k < row.length; k++) {
        const o = y * row.length + k;
        out[o] = out[o]! + wt * row[k]!;
      }
    }
  }
  return out;
}

function expectSameBits(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  let differing = 0;
  for (let i = 0; i < expected.length; i++) if (!Object.is(actual[i], expected[i])) differing++;
  expect(differing).toBe(0);
}

describe('image kernels give the plain versions’ values bit for bit', () => {
  const sizes: Array<[number, number]> = [
    [512, 288],
    [256, 144],
    [224, 224],
    [97, 61],
    [9, 9],
    [3, 40],
    [2, 2],
  ];

  it('noiseSigma (one pass, per-bin sums) with and without clipped pixels left out', () => {
    sizes.forEach(([w, h], k) => {
      const img = textured(w, h, k + 1);
      for (const excludeClipped of [false, true]) {
        expect(noiseSigma(img, excludeClipped)).toBe(noiseSigmaReference(img, excludeClipped));
      }
    });
  });

  it('edgeBlurSigma (re-blurred rows in a ring, 7-tap sums unrolled) with and without a noise level', () => {
    sizes.forEach(([w, h], k) => {
      const img = textured(w, h, 10 + k);
      for (const noise of [0, 2.5])
        expect(edgeBlurSigma(img, noise)).toBe(edgeBlurSigmaReference(img, noise));
    });
  });

  it('resizeAreaGrey and resizeAreaRgb (taps padded to the most per axis, common spans unrolled)', () => {
    // Scales giving spans of 2 to 7 taps per axis, whole outputs and centre crops.
    const cases: Array<[number, number, number, number, AreaCrop | undefined]> = [
      [1280, 720, 512, 288, undefined],
      [1280, 720, 398, 224, { left: 87, top: 0, width: 224, height: 224 }],
      [720, 1280, 224, 398, { left: 0, top: 87, width: 224, height: 224 }],
      [1920, 1080, 512, 288, undefined],
      [640, 480, 300, 225, undefined],
      [333, 177, 100, 53, undefined],
      [100, 60, 77, 31, undefined],
      [50, 40, 7, 5, undefined],
    ];
    cases.forEach(([sw, sh, w, h, crop], k) => {
      const rgb = bytes(sw * sh * 3, k + 1);
      expectSameBits(
        resizeAreaRgb(rgb, sw, sh, w, h, crop).data,
        resizeAreaReference(rgb, sw, sh, w, h, 3, crop),
      );
      const grey = textured(sw, sh, k + 1);
      expectSameBits(resizeAreaGrey(grey, w, h).data, resizeAreaReference(grey.data, sw, sh, w, h, 1));
    });
  });
});
