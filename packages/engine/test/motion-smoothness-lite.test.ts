/**
 * motion_smoothness `lite` version 3 (issue #13): VBench compares native pixels, so white noise that
 * the decoder's area downscale averaged away is restored in proportion to the native size; stutter
 * still costs. In-memory frames, fast.
 */
import { describe, expect, it } from 'vitest';
import { motionSmoothnessLite } from '../src/dimensions/motion-smoothness.js';
import { addNoise, movingPositions, probeFor, prng, renderClip, toFrame } from './validation-scenes.js';

/** Score frames (of the scene's size) as if they were the working decode of a clip `native`× larger. */
function smoothness(imgs: Float32Array[], native = 1): number {
  const probe = probeFor(imgs.length);
  const run = motionSmoothnessLite.start({
    probe: { ...probe, displayWidth: probe.width * native, displayHeight: probe.height * native },
  });
  imgs.forEach((img, i) => run.push(toFrame(img, i)));
  return run.finish().value;
}

describe('motion_smoothness lite v3', () => {
  const pan = renderClip(movingPositions(17, 1));
  const rand = prng(5);
  const noisy = pan.map((f) => addNoise(f, 3, rand));

  it('carries version 3', () => {
    expect(motionSmoothnessLite.version).toBe('3');
  });

  it('restores native-scale noise: the same noisy frames cost more when they stand for a larger clip', () => {
    const atNative = smoothness(noisy, 1);
    const fromDouble = smoothness(noisy, 2);
    const fromQuad = smoothness(noisy, 4);
    expect(fromDouble).toBeLessThan(atNative);
    expect(fromQuad).toBeLessThan(fromDouble);
    // A clean clip has (almost) no white residual to restore: the native size barely matters.
    expect(Math.abs(smoothness(pan, 4) - smoothness(pan, 1))).toBeLessThan(0.25 * (atNative - fromQuad));
  });

  it('still sees stutter by duplication (30 → 10 fps re-timed)', () => {
    const stutter = pan.map((_, i) => pan[i - (i % 3)]!);
    expect(smoothness(stutter, 2)).toBeLessThan(smoothness(pan, 2) - 0.005);
  });
});
