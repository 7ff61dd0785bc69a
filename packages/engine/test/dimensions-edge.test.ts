/** Every model-free method on degenerate input: tiny frames, one or two frames, flat frames. */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../src/contract.js';
import type { Frame, VideoProbe } from '../src/contract.js';
import { METHODS } from '../src/dimensions/index.js';
import { prng } from './validation-scenes.js';

function probe(width: number, height: number, frames: number, fps = 8): VideoProbe {
  return {
    container: 'test',
    codec: 'raw',
    width,
    height,
    rotation: 0,
    displayWidth: width,
    displayHeight: height,
    fps,
    frameCount: frames,
    fpsAssumed: false,
    frameCountExact: true,
    durationSeconds: frames / fps,
    bitRate: null,
    sizeBytes: 0,
  };
}

function frames(width: number, height: number, count: number, fill: 'flat' | 'random'): Frame[] {
  const rand = prng(width * 31 + height);
  return Array.from({ length: count }, (_, index) => {
    const data = new Uint8Array(width * height * 3);
    for (let i = 0; i < data.length; i++) data[i] = fill === 'flat' ? 128 : Math.floor(rand() * 256);
    return { index, timeSeconds: index / 8, width, height, channels: 3 as const, data };
  });
}

describe('degenerate input', () => {
  for (const [w, h] of [
    [1, 1],
    [7, 5],
    [2, 300],
    [33, 17],
  ] as const) {
    for (const count of [1, 2, 3, 9]) {
      for (const fill of ['flat', 'random'] as const) {
        it(`${w}×${h}, ${count} frame(s), ${fill}: a value in range or too_few_frames`, () => {
          for (const m of METHODS) {
            const run = m.start({ probe: probe(w, h, count) });
            for (const f of frames(w, h, count, fill)) run.push(f);
            try {
              const out = run.finish();
              expect(Number.isFinite(out.value), `${m.dimension}`).toBe(true);
              expect(out.value, m.dimension).toBeGreaterThanOrEqual(0);
              expect(out.value, m.dimension).toBeLessThanOrEqual(1);
              expect(out.indices.length, m.dimension).toBeGreaterThan(0);
            } catch (err) {
              expect(err, m.dimension).toBeInstanceOf(EngineError);
              expect((err as EngineError).code, m.dimension).toBe('too_few_frames');
              const needs = m.dimension === 'motion_smoothness' ? 3 : 2;
              expect(count, m.dimension).toBeLessThan(needs);
            }
          }
        });
      }
    }
  }

  it('a frame count the probe got wrong still yields frames for the sampled methods', () => {
    for (const m of METHODS) {
      const run = m.start({ probe: probe(16, 16, 500) });
      for (const f of frames(16, 16, 4, 'random')) run.push(f);
      expect(run.finish().indices.length, m.dimension).toBeGreaterThan(0);
    }
  });

  it('an unknown fps still samples (interval 1)', () => {
    const m = METHODS.find((x) => x.dimension === 'dynamic_degree')!;
    const run = m.start({ probe: probe(16, 16, 5, 0) });
    for (const f of frames(16, 16, 5, 'random')) run.push(f);
    expect(run.finish().details?.interval).toBe(1);
  });

  it('rejects grey frames and inconsistent buffers with decode_failed', () => {
    for (const m of METHODS) {
      const run = m.start({ probe: probe(4, 4, 2) });
      const grey: Frame = {
        index: 0,
        timeSeconds: 0,
        width: 4,
        height: 4,
        channels: 1,
        data: new Uint8Array(16),
      };
      expect(() => run.push(grey), m.dimension).toThrow(EngineError);
      const short: Frame = {
        index: 0,
        timeSeconds: 0,
        width: 4,
        height: 4,
        channels: 3,
        data: new Uint8Array(10),
      };
      expect(() => m.start({ probe: probe(4, 4, 2) }).push(short), m.dimension).toThrow(/inconsistent size/);
    }
  });
});
