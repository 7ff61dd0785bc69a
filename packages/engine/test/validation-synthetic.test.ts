/**
 * Validation on in-memory synthetic clips: every model-free method moves the right way under each
 * degradation, and monotonically across graded severities.
 */
import { describe, expect, it } from 'vitest';
import type { DimensionId } from '../src/contract.js';
import { METHODS } from '../src/dimensions/index.js';
import type { DimensionMethod } from '../src/method-contract.js';
import {
  addNoise,
  blockify,
  boxBlur,
  movingPositions,
  prng,
  renderClip,
  renderScene,
  runMethod,
  scale,
} from './validation-scenes.js';

/** A model-free method of this build (synchronous run), looked up in `METHODS`. */
function modelFree(dimension: string, id: string): DimensionMethod {
  const m = METHODS.find((x) => x.dimension === dimension && x.id === id);
  if (!m) throw new Error(`no model-free method ${dimension}/${id}`);
  return m;
}

const FRAMES = 17;

const METHOD: Record<string, DimensionMethod> = {
  subject_consistency: modelFree('subject_consistency', 'lite'),
  background_consistency: modelFree('background_consistency', 'lite'),
  temporal_flickering: modelFree('temporal_flickering', 'vbench'),
  motion_smoothness: modelFree('motion_smoothness', 'lite'),
  dynamic_degree: modelFree('dynamic_degree', 'lite'),
  aesthetic_quality: modelFree('aesthetic_quality', 'lite'),
  imaging_quality: modelFree('imaging_quality', 'lite'),
};

function score(dim: DimensionId, clip: Float32Array[]): number {
  return runMethod(METHOD[dim]!, clip).value;
}

function scores(dim: DimensionId, clips: Float32Array[][]): number[] {
  return clips.map((c) => score(dim, c));
}

function expectStrictlyDecreasing(values: number[], label: string): void {
  for (let i = 1; i < values.length; i++) {
    expect(values[i]!, `${label}: ${values.map((v) => v.toFixed(4)).join(' → ')}`).toBeLessThan(
      values[i - 1]!,
    );
  }
}

function expectNonIncreasing(values: number[], label: string): void {
  for (let i = 1; i < values.length; i++) {
    expect(values[i]!, `${label}: ${values.join(' → ')}`).toBeLessThanOrEqual(values[i - 1]!);
  }
}

const still = renderScene(0, 0, 90, 80);
const staticClip = Array.from({ length: FRAMES }, () => still);
const slow = renderClip(movingPositions(FRAMES, 0.5));

describe('static clip', () => {
  it('is perfectly consistent, flicker-free, smooth and not dynamic', () => {
    expect(score('temporal_flickering', staticClip)).toBe(1);
    expect(score('subject_consistency', staticClip)).toBeCloseTo(1, 6);
    expect(score('background_consistency', staticClip)).toBeCloseTo(1, 6);
    expect(score('motion_smoothness', staticClip)).toBe(1);
    expect(score('dynamic_degree', staticClip)).toBe(0);
  });
});

describe('moving pattern, speed 0 → 0.5 → 2 → 6 px/frame', () => {
  const clips = [0, 0.5, 2, 6].map((s) => renderClip(movingPositions(FRAMES, s)));
  it('dynamic_degree goes from 0 to 1 and never back', () => {
    const d = scores('dynamic_degree', clips);
    expect(d[0]).toBe(0);
    expect(d[1]).toBe(0);
    expect(d[3]).toBe(1);
    for (let i = 1; i < d.length; i++) expect(d[i]!).toBeGreaterThanOrEqual(d[i - 1]!);
  });
  it('temporal_flickering and both consistencies fall as motion grows', () => {
    expectStrictlyDecreasing(scores('temporal_flickering', clips), 'flickering');
    expectStrictlyDecreasing(scores('subject_consistency', clips), 'subject');
    expectStrictlyDecreasing(scores('background_consistency', clips), 'background');
  });
});

describe('flicker, brightness swing 0 → 4 → 8 → 16 %', () => {
  const clips = [0, 0.04, 0.08, 0.16].map((a) => slow.map((img, t) => scale(img, 1 + (t % 2 ? a : -a))));
  it('temporal_flickering falls strictly', () => {
    expectStrictlyDecreasing(scores('temporal_flickering', clips), 'flickering');
  });
  it('consistency and motion smoothness fall', () => {
    expectStrictlyDecreasing(scores('subject_consistency', clips), 'subject');
    expectStrictlyDecreasing(scores('background_consistency', clips), 'background');
    expectStrictlyDecreasing(scores('motion_smoothness', clips), 'smoothness');
  });
});

describe('noise, σ 0 → 4 → 8 → 16', () => {
  const clips = [0, 4, 8, 16].map((sigma) => {
    const rand = prng(7);
    return staticClip.map((img) => (sigma > 0 ? addNoise(img, sigma, rand) : img));
  });
  it('imaging and aesthetic quality fall strictly', () => {
    expectStrictlyDecreasing(scores('imaging_quality', clips), 'imaging');
    expectStrictlyDecreasing(scores('aesthetic_quality', clips), 'aesthetic');
  });
  it('temporal_flickering, consistency and motion smoothness fall strictly', () => {
    expectStrictlyDecreasing(scores('temporal_flickering', clips), 'flickering');
    expectStrictlyDecreasing(scores('subject_consistency', clips), 'subject');
    expectStrictlyDecreasing(scores('background_consistency', clips), 'background');
    expectStrictlyDecreasing(scores('motion_smoothness', clips), 'smoothness');
  });
});

describe('blur, box radius 0 → 1 → 2 → 4', () => {
  const clips = [0, 1, 2, 4].map((r) => {
    const b = boxBlur(still, r);
    return Array.from({ length: 5 }, () => b);
  });
  it('imaging and aesthetic quality fall strictly', () => {
    expectStrictlyDecreasing(scores('imaging_quality', clips), 'imaging');
    expectStrictlyDecreasing(scores('aesthetic_quality', clips), 'aesthetic');
  });
});

describe('blockiness (8×8 block means blended in) 0 → ⅓ → ⅔ → 1', () => {
  const clips = [0, 1 / 3, 2 / 3, 1].map((a) => {
    const b = blockify(still, a);
    return Array.from({ length: 5 }, () => b);
  });
  it('imaging quality falls strictly', () => {
    expectStrictlyDecreasing(scores('imaging_quality', clips), 'imaging');
  });
});

describe('jitter, random offsets 0 → 1 → 2 → 4 px on a 1 px/frame pan', () => {
  const base = movingPositions(FRAMES, 1);
  const clips = [0, 1, 2, 4].map((j) => {
    const rand = prng(11);
    return renderClip(
      base.map(([a, b, c, d]) => {
        const ox = j * (rand() * 2 - 1);
        const oy = j * (rand() * 2 - 1);
        return [a + ox, b + oy, c + ox, d + oy] as [number, number, number, number];
      }),
    );
  });
  it('motion smoothness falls strictly', () => {
    expectStrictlyDecreasing(scores('motion_smoothness', clips), 'smoothness');
  });
});

describe('dropped frames on a 1.5 px/frame pan: none, every 6th, every 3rd, every 2nd', () => {
  const clips = [0, 6, 3, 2].map((k) => {
    const positions: Array<[number, number, number, number]> = [];
    let src = 0;
    for (let t = 0; t < FRAMES; t++) {
      if (k > 0 && t > 0 && t % k === 0) src += 1; // one source frame dropped
      const s = 1.5 * src;
      positions.push([s, 0.3 * s, 90 + 1.5 * s, 80]);
      src += 1;
    }
    return renderClip(positions);
  });
  it('motion smoothness falls strictly', () => {
    expectStrictlyDecreasing(scores('motion_smoothness', clips), 'smoothness');
  });
});

describe('freeze: share of frozen frames at the end 0 → ¼ → ½ → all', () => {
  const moving = renderClip(movingPositions(FRAMES, 2));
  const clips = [0, 0.25, 0.5, 1].map((f) => {
    const cut = Math.max(1, Math.round(FRAMES * (1 - f)));
    return moving.map((img, t) => (t < cut ? img : moving[cut - 1]!));
  });
  it('dynamic degree drops to 0 and never rises', () => {
    const d = scores('dynamic_degree', clips);
    expect(d[0]).toBe(1);
    expect(d[3]).toBe(0);
    expectNonIncreasing(d, 'dynamic');
  });
  it('temporal_flickering and motion smoothness rise', () => {
    const fl = scores('temporal_flickering', clips).map((v) => -v);
    expectStrictlyDecreasing(fl, 'flickering (negated)');
    const ms = scores('motion_smoothness', clips).map((v) => -v);
    expectStrictlyDecreasing(ms, 'smoothness (negated)');
  });
});
