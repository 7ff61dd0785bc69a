import { describe, expect, it } from 'vitest';
import { boxMean, gradients } from '../src/image/filter.js';
import { meanAbsDiff } from '../src/image/diff.js';
import { buildPyramid, computeFlow } from '../src/image/flow.js';
import { reduce, halve } from '../src/image/resize.js';
import { blockiness, blurEffect, colourfulness, exposureStats, noiseSigma } from '../src/image/quality.js';
import { cosine, frameDescriptor } from '../src/image/descriptor.js';
import { interpolateHalfway } from '../src/image/warp.js';
import type { GreyImage } from '../src/image/types.js';
import { prng, renderScene, W, H } from './validation-scenes.js';
import { rgbToGrey } from '../src/image/convert.js';

function naiveBox(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++)
        for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
          s += src[yy * w + xx]!;
          n++;
        }
      out[y * w + x] = s / n;
    }
  return out;
}

function texture(w: number, h: number, dx = 0, dy = 0): GreyImage {
  const rgb = renderScene(dx, dy, 90 + dx, 80 + dy);
  const g = rgbToGrey({ width: W, height: H, data: rgb });
  if (w === W && h === H) return g;
  throw new Error('size');
}

describe('meanAbsDiff', () => {
  it('matches the naive mean on aligned and unaligned buffers of any length', () => {
    const rand = prng(3);
    for (const n of [1, 3, 4, 7, 64, 1001, 30_000]) {
      const buf = new Uint8Array(2 * n + 8);
      for (let i = 0; i < buf.length; i++) buf[i] = Math.floor(rand() * 256);
      for (const off of [0, 1]) {
        const a = buf.subarray(off, off + n);
        const b = buf.subarray(n + 4 + off, n + 4 + off + n);
        let s = 0;
        for (let i = 0; i < n; i++) s += Math.abs(a[i]! - b[i]!);
        expect(meanAbsDiff(a, b)).toBeCloseTo(s / n, 10);
      }
    }
    expect(meanAbsDiff(new Uint8Array([0, 255, 0, 255]), new Uint8Array([255, 0, 255, 0]))).toBe(255);
  });
});

describe('boxMean', () => {
  it('equals a naive border-normalised box mean', () => {
    const rand = prng(5);
    for (const [w, h, r] of [
      [17, 9, 2],
      [5, 5, 2],
      [3, 8, 2],
      [40, 30, 1],
      [6, 6, 2],
    ] as const) {
      const src = Float32Array.from({ length: w * h }, () => rand() * 100);
      const out = boxMean(src, w, h, r, new Float32Array(w * h), new Float32Array(w * h));
      const ref = naiveBox(src, w, h, r);
      for (let i = 0; i < w * h; i++) expect(out[i]!).toBeCloseTo(ref[i]!, 3);
    }
  });
});

describe('pyramid and gradients', () => {
  it('reduce keeps the mean of a smooth image and halves the size (rounding up)', () => {
    const img = texture(W, H);
    const r = reduce(img);
    expect([r.width, r.height]).toEqual([120, 80]);
    const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean(r.data)).toBeCloseTo(mean(img.data), 0);
    expect(halve({ width: 5, height: 3, data: new Float32Array(15).fill(7) }).data[0]).toBe(7);
  });
  it('gradients of a ramp are its slope', () => {
    const w = 6;
    const h = 4;
    const src = Float32Array.from({ length: w * h }, (_, i) => 3 * (i % w) + 5 * Math.floor(i / w));
    const gx = new Float32Array(w * h);
    const gy = new Float32Array(w * h);
    gradients(src, w, h, gx, gy);
    expect([...gx].every((v) => Math.abs(v - 3) < 1e-6)).toBe(true);
    expect([...gy].every((v) => Math.abs(v - 5) < 1e-6)).toBe(true);
  });
});

describe('dense optical flow', () => {
  it('recovers sub-pixel and multi-pixel translations of a textured scene', () => {
    const a = texture(W, H);
    for (const [dx, dy] of [
      [0.4, 0],
      [1.7, -1.2],
      [6, 3],
    ] as const) {
      const b = rgbToGrey({ width: W, height: H, data: renderScene(dx, dy, 90 + dx, 80 + dy) });
      const f = computeFlow(buildPyramid(a, 5, 4), buildPyramid(b, 5, 4));
      let su = 0;
      let sv = 0;
      let n = 0;
      for (let y = 20; y < H - 20; y++)
        for (let x = 20; x < W - 20; x++) {
          su += f.u[y * W + x]!;
          sv += f.v[y * W + x]!;
          n++;
        }
      expect(su / n).toBeCloseTo(dx, 0);
      expect(sv / n).toBeCloseTo(dy, 0);
      expect(Math.abs(su / n - dx)).toBeLessThan(0.25);
      expect(Math.abs(sv / n - dy)).toBeLessThan(0.25);
    }
  });

  it('gives zero flow for identical frames and ignores a global brightness change', () => {
    const a = texture(W, H);
    const same = computeFlow(buildPyramid(a, 4), buildPyramid(a, 4));
    expect(same.u.every((v) => v === 0) && same.v.every((v) => v === 0)).toBe(true);
    const brighter = { width: W, height: H, data: a.data.map((v) => v + 20) };
    const f = computeFlow(buildPyramid(a, 4), buildPyramid(brighter, 4));
    const maxMag = Math.max(...Array.from(f.u, (u, i) => Math.hypot(u, f.v[i]!)));
    expect(maxMag).toBeLessThan(0.05);
  });

  it('interpolates the halfway frame of a pan better than averaging the neighbours', () => {
    const f0 = renderScene(0, 0, 90, 80);
    const f1 = renderScene(2, 1, 93, 80);
    const f2 = renderScene(4, 2, 96, 80);
    const g0 = rgbToGrey({ width: W, height: H, data: f0 });
    const g2 = rgbToGrey({ width: W, height: H, data: f2 });
    const p0 = buildPyramid(g0, 4);
    const p2 = buildPyramid(g2, 4);
    const mid = interpolateHalfway(
      { width: W, height: H, data: f0 },
      { width: W, height: H, data: f2 },
      computeFlow(p0, p2),
      computeFlow(p2, p0),
    );
    let errFlow = 0;
    let errBlend = 0;
    for (let i = 0; i < f1.length; i++) {
      errFlow += Math.abs(mid.data[i]! - f1[i]!);
      errBlend += Math.abs(0.5 * (f0[i]! + f2[i]!) - f1[i]!);
    }
    expect(errFlow / f1.length).toBeLessThan(0.35 * (errBlend / f1.length));
  });
});

describe('no-reference statistics', () => {
  const sharp = texture(W, H);
  it('blur effect rises with blur; noise σ tracks added noise; blockiness detects the 8×8 grid', () => {
    const blurred = { width: W, height: H, data: new Float32Array(W * H) };
    boxMean(sharp.data, W, H, 2, blurred.data, new Float32Array(W * H));
    expect(blurEffect(blurred)).toBeGreaterThan(blurEffect(sharp) + 0.1);
    const rand = prng(9);
    const noisy = {
      width: W,
      height: H,
      data: sharp.data.map(
        (v) => v + 10 * Math.sqrt(-2 * Math.log(Math.max(1e-12, rand()))) * Math.cos(2 * Math.PI * rand()),
      ),
    };
    expect(noiseSigma(sharp)).toBeLessThan(2);
    expect(noiseSigma(noisy)).toBeGreaterThan(6);
    expect(noiseSigma(noisy)).toBeLessThan(12);
    const blocks = { width: W, height: H, data: new Float32Array(W * H) };
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) blocks.data[y * W + x] = sharp.data[(y & ~7) * W + (x & ~7)]!;
    expect(blockiness(sharp)).toBeLessThan(0.1);
    expect(blockiness(blocks)).toBeGreaterThan(0.8);
  });
  it('exposure and colourfulness', () => {
    const grey = { width: 4, height: 1, data: Float32Array.from([0, 255, 100, 100]) };
    const e = exposureStats(grey);
    expect(e.clipped).toBe(0.5);
    expect(e.mean).toBeCloseTo(113.75, 6);
    expect(colourfulness(new Float32Array([50, 50, 50, 50, 50, 50]), 2)).toBe(0);
    expect(colourfulness(new Float32Array([255, 0, 0, 0, 0, 255]), 2)).toBeGreaterThan(100);
  });
});

describe('frame descriptors', () => {
  it('cosine is 1 for the same frame, high for a small shift, low for an unrelated frame', () => {
    const a = { width: W, height: H, data: renderScene(0, 0, 90, 80) };
    const shifted = { width: W, height: H, data: renderScene(3, 0, 93, 80) };
    const other = { width: W, height: H, data: renderScene(500, 300, 170, 40) };
    for (const kind of ['centre', 'border'] as const) {
      const da = frameDescriptor(a, kind);
      expect(cosine(da, da)).toBeCloseTo(1, 6);
      const near = cosine(da, frameDescriptor(shifted, kind));
      const far = cosine(da, frameDescriptor(other, kind));
      expect(near).toBeGreaterThan(0.95);
      expect(far).toBeLessThan(near - 0.1);
    }
  });
  it('centre weighting follows the subject, border weighting the background', () => {
    const a = { width: W, height: H, data: renderScene(0, 0, 120, 80) };
    const subjectGone = { width: W, height: H, data: renderScene(0, 0, 400, 80) };
    const centreDrop = 1 - cosine(frameDescriptor(a, 'centre'), frameDescriptor(subjectGone, 'centre'));
    const borderDrop = 1 - cosine(frameDescriptor(a, 'border'), frameDescriptor(subjectGone, 'border'));
    expect(centreDrop).toBeGreaterThan(2 * borderDrop);
  });
});
