/**
 * Preprocessing parity with VBench's torchvision transforms. Expected values are worked by hand
 * from the definitions (documented per case), not produced by the code under test:
 * - F.interpolate(align_corners=False): source x = (d + 0.5)·in/out − 0.5; bilinear clamps x ≥ 0;
 *   bicubic uses Keys' kernel with A = −0.75 and clamps the taps to the image;
 * - torchvision Resize(int): shorter side → size, longer → int(size·long/short);
 * - CenterCrop: top/left = int(round((size − crop)/2)) with Python's half-to-even round;
 * - Normalize: (x/255 − mean)/std.
 */
import { describe, expect, it } from 'vitest';
import { resizeInterleaved, shortSideSize } from '../src/preprocess/resize.js';
import {
  applyTransform,
  centreCropOffset,
  CLIP_MEAN,
  CLIP_STD,
  IMAGENET_MEAN,
  IMAGENET_STD,
  outputSize,
  resizedSize,
  TRANSFORMS,
} from '../src/preprocess/transforms.js';

function grey(width: number, height: number, values: number[]): Uint8Array {
  expect(values).toHaveLength(width * height);
  return Uint8Array.from(values);
}

function rgbFrame(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]) {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 3);
  return { width, height, channels: 3 as const, data };
}

describe('resize (torchvision tensor Resize, antialias=False)', () => {
  it('bilinear 4×2 → 2×1 is the mean of each 2×2 block (x = 0.5 and 2.5; y = 0.5)', () => {
    const img = grey(4, 2, [10, 20, 30, 40, 50, 60, 70, 80]);
    const out = resizeInterleaved(img, 4, 2, 1, 2, 1, 'bilinear');
    expect(Array.from(out.data)).toEqual([(10 + 20 + 50 + 60) / 4, (30 + 40 + 70 + 80) / 4]);
  });

  it('bilinear 2 → 4 upsampling gives [a, ¾a+¼b, ¼a+¾b, b] (x = −0.25 clamped to 0, 0.25, 0.75, 1.25)', () => {
    const out = resizeInterleaved(grey(2, 1, [0, 100]), 2, 1, 1, 4, 1, 'bilinear');
    expect(Array.from(out.data)).toEqual([0, 25, 75, 100]);
  });

  it('bicubic 2 → 4 overshoots as Keys A=−0.75 does: [−0.10546875, 0.2265625, 0.7734375, 1.10546875]·b', () => {
    // d=0: x=−0.25, t=0.75, taps (−2,−1,0,1)→(0,0,0,1): only the last weight, W(1.25) = −0.10546875, sees b.
    // d=1: x=0.25, t=0.25, taps (−1,0,1,2)→(0,0,1,1): W(0.75) + W(1.75) = 0.26171875 − 0.03515625.
    const out = resizeInterleaved(grey(2, 1, [0, 128]), 2, 1, 1, 4, 1, 'bicubic');
    const expected = [-0.10546875, 0.2265625, 0.7734375, 1.10546875].map((v) => v * 128);
    out.data.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 4));
  });

  it('same-size bicubic is the identity (t = 0: weights 0, 1, 0, 0)', () => {
    const img = grey(3, 2, [1, 2, 3, 4, 5, 250]);
    expect(Array.from(resizeInterleaved(img, 3, 2, 1, 3, 2, 'bicubic').data)).toEqual([1, 2, 3, 4, 5, 250]);
  });

  it('Resize(224) sizes: shorter side 224, longer side truncated', () => {
    expect(shortSideSize(640, 360, 224)).toEqual({ width: 398, height: 224 }); // 224·640/360 = 398.2
    expect(shortSideSize(320, 448, 224)).toEqual({ width: 224, height: 313 }); // 224·448/320 = 313.6
    expect(shortSideSize(224, 224, 224)).toEqual({ width: 224, height: 224 });
  });
});

describe('VBench transforms', () => {
  it('CLIP: a uniform frame becomes (v/255 − mean)/std everywhere, 3×224×224', () => {
    const f = rgbFrame(320, 240, () => [200, 100, 50]);
    const out = applyTransform(TRANSFORMS.clip224, f);
    expect([out.width, out.height]).toEqual([224, 224]);
    expect(out.data).toHaveLength(3 * 224 * 224);
    const plane = 224 * 224;
    [200, 100, 50].forEach((v, c) => {
      const expected = (v / 255 - CLIP_MEAN[c]!) / CLIP_STD[c]!;
      expect(out.data[c * plane]).toBeCloseTo(expected, 5);
      expect(out.data[c * plane + plane - 1]).toBeCloseTo(expected, 5);
    });
  });

  it('CLIP: centre crop offset round((300 − 224)/2) = 38 and round-half-even((301 − 224)/2 = 38.5) = 38', () => {
    expect(centreCropOffset(300, 224)).toBe(38);
    expect(centreCropOffset(301, 224)).toBe(38);
    expect(centreCropOffset(303, 224)).toBe(40); // 39.5 → 40
    // 300×224: no resize (the shorter side is already 224), so output column x is source column x + 38.
    const f = rgbFrame(300, 224, (x) => [Math.floor(x / 2), 0, 0]);
    const out = applyTransform(TRANSFORMS.clip224, f);
    const red = (x: number): number => (out.data[x]! * CLIP_STD[0] + CLIP_MEAN[0]) * 255;
    expect(red(0)).toBeCloseTo(19, 3); // floor(38/2)
    expect(red(1)).toBeCloseTo(19, 3); // floor(39/2)
    expect(red(2)).toBeCloseTo(20, 3); // floor(40/2)
    expect(red(223)).toBeCloseTo(130, 3); // floor(261/2)
  });

  it('DINO: shorter side 224 bilinear, no crop (aspect kept), ImageNet normalisation', () => {
    const f = rgbFrame(448, 320, () => [10, 20, 30]);
    expect(outputSize(TRANSFORMS.dino224, 448, 320)).toEqual({ width: 313, height: 224 });
    const out = applyTransform(TRANSFORMS.dino224, f);
    expect([out.width, out.height]).toEqual([313, 224]);
    const plane = 313 * 224;
    [10, 20, 30].forEach((v, c) =>
      expect(out.data[c * plane + 5]).toBeCloseTo((v / 255 - IMAGENET_MEAN[c]!) / IMAGENET_STD[c]!, 5),
    );
  });

  it('DINO: a 2× downscale samples (bilinear, no antialias) between the two source pixels', () => {
    // 448×448 → 224×224: x = 2d + 0.5 → mean of columns 2d and 2d+1 (and rows likewise).
    const f = rgbFrame(448, 448, (x, y) => [x % 2 === 0 ? 0 : 200, y % 2 === 0 ? 0 : 100, 0]);
    const out = applyTransform(TRANSFORMS.dino224, f);
    const plane = 224 * 224;
    expect(out.data[10]).toBeCloseTo((100 / 255 - IMAGENET_MEAN[0]) / IMAGENET_STD[0], 5);
    expect(out.data[plane + 10]).toBeCloseTo((50 / 255 - IMAGENET_MEAN[1]) / IMAGENET_STD[1], 5);
  });

  it('DETR: shorter side 800 unless the longer side would pass 1333', () => {
    expect(resizedSize(TRANSFORMS.detr800, 640, 480)).toEqual({ width: 1066, height: 800 });
    // 1920×1080: 800·1920/1080 = 1422 > 1333 → size = round(1333·1080/1920) = round(749.8) = 750.
    expect(resizedSize(TRANSFORMS.detr800, 1920, 1080)).toEqual({ width: 1333, height: 750 });
  });

  it('writes into a batch buffer at an offset', () => {
    const f = rgbFrame(224, 224, () => [255, 255, 255]);
    const per = 3 * 224 * 224;
    const buf = new Float32Array(2 * per);
    applyTransform(TRANSFORMS.clip224, f, buf, per);
    expect(buf[0]).toBe(0);
    expect(buf[per]).toBeCloseTo((1 - CLIP_MEAN[0]) / CLIP_STD[0], 5);
  });
});
