import { describe, expect, it } from 'vitest';
import type { Frame, VideoProbe } from '../src/contract.js';
import { EngineError } from '../src/contract.js';
import { METHODS } from '../src/dimensions/index.js';
import type { DimensionMethod } from '../src/method-contract.js';
import { roundHalfEven } from '../src/dimensions/common.js';

/** A model-free method of this build (synchronous run), looked up in `METHODS`. */
function modelFree(dimension: string, id: string): DimensionMethod {
  const m = METHODS.find((x) => x.dimension === dimension && x.id === id);
  if (!m) throw new Error(`no model-free method ${dimension}/${id}`);
  return m;
}

const probe: VideoProbe = {
  container: 'test',
  codec: 'raw',
  width: 8,
  height: 6,
  rotation: 0,
  displayWidth: 8,
  displayHeight: 6,
  fps: 8,
  frameCount: 3,
  fpsAssumed: false,
  frameCountExact: true,
  durationSeconds: 3 / 8,
  bitRate: null,
  sizeBytes: 0,
};

function frame(index: number, width: number, height: number, fill: (i: number) => number): Frame {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = fill(i);
  return { index, timeSeconds: index / 8, width, height, channels: 3, data };
}

describe('temporal_flickering (vbench)', () => {
  const method = modelFree('temporal_flickering', 'vbench');

  it('asks for every frame at native resolution in RGB', () => {
    expect(method.frames(probe)).toEqual({ sampling: { kind: 'all' }, maxSide: null, channels: 3 });
  });

  it('equals its closed form on constructed frames', () => {
    // Frame 0: all 10; frame 1: values i mod 7 + 100; frame 2: alternating 0/255.
    const f0 = frame(0, 8, 6, () => 10);
    const f1 = frame(1, 8, 6, (i) => (i % 7) + 100);
    const f2 = frame(2, 8, 6, (i) => (i % 2 ? 255 : 0));
    let mae01 = 0;
    let mae12 = 0;
    for (let i = 0; i < 144; i++) {
      mae01 += Math.abs(10 - ((i % 7) + 100));
      mae12 += Math.abs((i % 7) + 100 - (i % 2 ? 255 : 0));
    }
    mae01 /= 144;
    mae12 /= 144;
    const run = method.start({ probe });
    for (const f of [f0, f1, f2]) run.push(f);
    const out = run.finish();
    expect(out.value).toBeCloseTo((255 - (mae01 + mae12) / 2) / 255, 12);
    expect(out.indices).toEqual([0, 1, 2]);
    expect(out.details?.pairs).toBe(2);
  });

  it('is exactly 1 for identical frames and 0 for full-swing alternation', () => {
    const still = method.start({ probe });
    for (let t = 0; t < 4; t++) still.push(frame(t, 4, 4, (i) => i * 3));
    expect(still.finish().value).toBe(1);
    const swing = method.start({ probe });
    for (let t = 0; t < 4; t++) swing.push(frame(t, 4, 4, () => (t % 2 ? 255 : 0)));
    expect(swing.finish().value).toBe(0);
  });

  it('does not depend on the caller keeping frame buffers intact', () => {
    const run = method.start({ probe });
    const f = frame(0, 4, 4, () => 50);
    run.push(f);
    f.data.fill(0);
    run.push(frame(1, 4, 4, () => 50));
    expect(run.finish().value).toBe(1);
  });

  it('refuses a single frame and a size change with stable codes', () => {
    const one = method.start({ probe });
    one.push(frame(0, 4, 4, () => 1));
    expect(() => one.finish()).toThrow(EngineError);
    try {
      one.finish();
    } catch (e) {
      expect((e as EngineError).code).toBe('too_few_frames');
    }
    const run = method.start({ probe });
    run.push(frame(0, 4, 4, () => 1));
    expect(() => run.push(frame(1, 5, 4, () => 1))).toThrow(/size changed/);
  });
});

describe('roundHalfEven (Python round)', () => {
  it('rounds halves to even', () => {
    expect([0.5, 1.5, 2.5, 3.5, -0.5, -1.5].map((x) => roundHalfEven(x) + 0)).toEqual([0, 2, 2, 4, 0, -2]);
    expect([3.75, 3.749, 7.5, 12 / 8, 30 / 8, 24 / 8].map(roundHalfEven)).toEqual([4, 4, 8, 2, 4, 3]);
  });
});

describe('temporal_flickering SIMD kernel', () => {
  it('is available in this Node build and agrees exactly with the scalar path', async () => {
    const { createAbsDiffSummer } = await import('../src/image/sad.js');
    const { startScalarFlickerRun } = await import('../src/dimensions/temporal-flickering.js');
    expect(createAbsDiffSummer()).not.toBeNull();
    const method = modelFree('temporal_flickering', 'vbench');
    // Sizes around the 16-byte vector width and the 128-vector inner loop, plus a large frame.
    for (const [w, h] of [
      [1, 1],
      [5, 3],
      [16, 16],
      [43, 37],
      [700, 401],
    ] as const) {
      let seed = w * 7 + h;
      const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 255;
      const frames = Array.from({ length: 4 }, (_, t) => frame(t, w, h, () => rand()));
      const simd = method.start({ probe });
      const scalar = startScalarFlickerRun();
      for (const f of frames) {
        simd.push(f);
        scalar.push(f);
      }
      const a = simd.finish();
      const b = scalar.finish();
      expect(a.details?.simd).toBe(true);
      expect(b.details?.simd).toBe(false);
      expect(a.value).toBe(b.value);
      expect(a.details?.meanAbsDiff).toBe(b.details?.meanAbsDiff);
    }
  });

  it('sums a frame larger than one 4 MiB kernel chunk exactly', async () => {
    const { createAbsDiffSummer } = await import('../src/image/sad.js');
    const s = createAbsDiffSummer()!;
    const n = (1 << 22) * 2 + 37;
    const a = new Uint8Array(n).fill(255);
    const b = new Uint8Array(n);
    expect(s.push(a)).toBeNull();
    expect(s.push(b)).toBe(255 * n);
    expect(s.push(b)).toBe(0);
  });
});

describe('dynamic_degree helpers', () => {
  it('topFractionMean equals the mean of the sorted top ⌊5 %⌋', async () => {
    const { topFractionMean } = await import('../src/dimensions/dynamic-degree.js');
    let seed = 1;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const n of [1, 7, 19, 20, 100, 1001, 9000]) {
      const values = Float32Array.from({ length: n }, () => Math.floor(rand() * 50) / 7);
      const sorted = [...values].sort((a, b) => b - a);
      const k = Math.max(1, Math.floor(0.05 * n));
      const expected = sorted.slice(0, k).reduce((s, v) => s + v, 0) / k;
      expect(topFractionMean(values, 0.05)).toBeCloseTo(expected, 4);
    }
  });

  it('VBench interval and count rule, with Python rounding', async () => {
    const { dynamicInterval, isDynamic } = await import('../src/dimensions/dynamic-degree.js');
    expect([12, 20, 24, 30, 8, 4, 7.692, 0].map(dynamicInterval)).toEqual([2, 2, 3, 4, 1, 1, 1, 1]);
    // N = 2 → count_num 0: the first pair decides true even below the threshold.
    expect(isDynamic([0.1], 5, 2)).toBe(true);
    // N = 1: no pair, false.
    expect(isDynamic([], 5, 1)).toBe(false);
    // N = 10 → count_num round(2.5) = 2.
    expect(isDynamic([6, 1, 1, 1, 1, 1, 1, 1, 1], 5, 10)).toBe(false);
    expect(isDynamic([6, 1, 6, 1, 1, 1, 1, 1, 1], 5, 10)).toBe(true);
    // N = 6 → count_num round(1.5) = 2.
    expect(isDynamic([6, 1, 1, 1, 1], 5, 6)).toBe(false);
  });
});
