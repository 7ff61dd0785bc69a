/**
 * dynamic_degree `lite` version 2 (issue #13): flow that fails the forward–backward consistency
 * test does not count as motion; consistent motion does. Fast, in memory.
 */
import { describe, expect, it } from 'vitest';
import { consistentMagnitudes, dynamicDegreeLite } from '../src/dimensions/dynamic-degree.js';
import type { FlowField } from '../src/image/flow.js';
import { movingPositions, renderClip, runMethod } from './validation-scenes.js';

const field = (w: number, h: number, u: (x: number, y: number) => number, v = u): FlowField => {
  const out: FlowField = { width: w, height: h, u: new Float32Array(w * h), v: new Float32Array(w * h) };
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      out.u[y * w + x] = u(x, y);
      out.v[y * w + x] = v(x, y);
    }
  return out;
};

describe('dynamic_degree lite v2', () => {
  it('carries version 2', () => {
    expect(dynamicDegreeLite.version).toBe('2');
  });

  it('keeps a consistent translation, scaled to native pixels', () => {
    const fwd = field(32, 24, () => 1.5);
    const back = field(32, 24, () => -1.5);
    const { values, inconsistent } = consistentMagnitudes(fwd, back, 4, 4, 2);
    expect(inconsistent).toBe(0);
    expect(values.length).toBe(28 * 20);
    for (const m of values) expect(m).toBeCloseTo(4 * Math.hypot(1.5, 1.5), 5);
  });

  it('drops flow whose backward flow does not return (an error or an occlusion)', () => {
    // Forward says 3 px, backward says nothing moved: no correspondence to trust.
    const fwd = field(32, 24, (x) => (x < 16 ? 3 : 0));
    const back = field(32, 24, () => 0);
    const { values, inconsistent } = consistentMagnitudes(fwd, back, 4, 4, 2);
    expect(inconsistent).toBeGreaterThan(0.4);
    expect(Math.max(...values)).toBe(0);
  });

  it('still calls a clearly moving clip dynamic and a static one not', () => {
    expect(runMethod(dynamicDegreeLite, renderClip(movingPositions(17, 6))).value).toBe(1);
    expect(runMethod(dynamicDegreeLite, renderClip(movingPositions(17, 0))).value).toBe(0);
  });
});
