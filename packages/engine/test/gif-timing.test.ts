/**
 * GIFs without usable frame delays (issue #24): frames with no Graphic Control Extension at all, or
 * a delay of 0 or 1 cs, are read as browsers show them (10 cs each, 10 fps), the rate is marked as
 * assumed on the probe and on every score, and VBench's rate-based sampling (dynamic_degree's
 * interval) sees every frame instead of two. The GIFs are written byte by byte (`gifBytes`), so
 * no encoder's defaults decide what the file says.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/contract.js';
import { defaultFfmpegPath, defaultFfprobePath } from '../src/decode/binaries.js';
import { streamFrames } from '../src/decode/frame-stream.js';
import { readGifTiming } from '../src/decode/gif-timing.js';
import { resolveLimits } from '../src/decode/limits.js';
import { probeVideo, statedTiming } from '../src/decode/probe.js';
import { createEngine } from '../src/engine.js';
import { gifBytes } from '../src/testing/gif-writer.js';

const W = 96;
const H = 64;
const FRAMES = 16;
let dir = '';
let engine: Engine;

/** A 24×24 square crossing the frame, 5 px per frame, over a two-colour background. */
function movingSquare(i: number): Uint8Array {
  const px = new Uint8Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const inSquare = x >= 4 + 5 * i && x < 28 + 5 * i && y >= 20 && y < 44;
      px[y * W + x] = inSquare ? 1 : (x >> 4) % 2 === 0 ? 2 : 3;
    }
  return px;
}

async function gif(name: string, delays: Array<number | null>): Promise<string> {
  const path = join(dir, `${name}.gif`);
  await writeFile(
    path,
    gifBytes({
      width: W,
      height: H,
      palette: [
        [0, 0, 0],
        [250, 240, 40],
        [30, 60, 160],
        [40, 140, 60],
      ],
      frames: delays.map((delayCs, i) => ({ pixels: movingSquare(i), delayCs })),
    }),
  );
  return path;
}

const probe = (path: string) =>
  probeVideo(path, { ffprobePath: defaultFfprobePath(), limits: resolveLimits({}) });

const all = <T>(v: T): T[] => Array.from({ length: FRAMES }, () => v);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-gif-timing-'));
  engine = createEngine({ threads: 1 });
});
afterAll(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('GIF frame delays', () => {
  it('reads each frame delay from the blocks: missing and under 2 cs count as 10 cs', async () => {
    const cases: Array<
      [string, Array<number | null>, { frames: number; totalCs: number; assumedFrames: number }]
    > = [
      ['no-gce', all(null), { frames: 16, totalCs: 160, assumedFrames: 16 }],
      ['delay-0', all(0), { frames: 16, totalCs: 160, assumedFrames: 16 }],
      ['delay-1', all(1), { frames: 16, totalCs: 160, assumedFrames: 16 }],
      ['delay-2', all(2), { frames: 16, totalCs: 32, assumedFrames: 0 }],
      [
        'mixed',
        [4, 0, null, 1, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4],
        { frames: 16, totalCs: 82, assumedFrames: 3 },
      ],
    ];
    for (const [name, delays, want] of cases)
      expect(await readGifTiming(await gif(name, delays))).toEqual(want);
  });

  it('a GIF with no Graphic Control Extension at all: 10 fps, 1.6 s, assumed', async () => {
    const p = await probe(await gif('no-gce', all(null)));
    expect(p).toMatchObject({ codec: 'gif', frameCount: 16, fpsAssumed: true });
    expect(p.fps).toBeCloseTo(10, 9);
    expect(p.durationSeconds).toBeCloseTo(1.6, 9);
  });

  it('delays of 0 and of 1 cs: 10 fps, assumed (FFmpeg alone reads a delay of 1 as 100 fps)', async () => {
    for (const d of [0, 1]) {
      const p = await probe(await gif(`delay-${d}`, all(d)));
      expect(p.fpsAssumed).toBe(true);
      expect(p.fps).toBeCloseTo(10, 9);
      expect(p.durationSeconds).toBeCloseTo(1.6, 9);
    }
  });

  it('mixed delays: the mean rate as browsers play it; stated delays keep the container rate', async () => {
    // 13 frames of 4 cs and 3 read as 10 cs: 82 cs for 16 frames.
    const mixed = await probe(await gif('mixed', [4, 0, null, 1, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]));
    expect(mixed.fpsAssumed).toBe(true);
    expect(mixed.fps).toBeCloseTo(1600 / 82, 9);
    expect(mixed.durationSeconds).toBeCloseTo(0.82, 9);
    for (const [d, fps] of [
      [2, 50],
      [10, 10],
    ] as const) {
      const p = await probe(await gif(`delay-${d}`, all(d)));
      expect(p).toMatchObject({ fpsAssumed: false, fps });
    }
  });

  it('rate-based sampling sees the assumed rate: 5 fps keeps every second frame', async () => {
    const path = await gif('no-gce', all(null));
    const p = await probe(path);
    const indices: number[] = [];
    for await (const g of streamFrames(path, p, {
      ffmpegPath: defaultFfmpegPath(),
      outputs: [{ sampling: { kind: 'fps', fps: 5 }, maxSide: 32, channels: 1 }],
      maxFrames: 1000,
    }))
      indices.push(g.index);
    expect(indices).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });

  it('dynamic_degree samples all 16 frames (interval 1, not 12) and every score records the rate', async () => {
    for (const delays of [all(null), all(0)]) {
      const path = await gif(delays[0] === null ? 'no-gce' : 'delay-0', delays);
      const r = await engine.evaluate(path, { dimensions: ['dynamic_degree', 'temporal_flickering'] });
      expect(r.failures).toEqual([]);
      expect(r.probe).toMatchObject({ fpsAssumed: true, frameCount: 16 });
      const dd = r.scores.find((s) => s.dimension === 'dynamic_degree')!;
      expect(dd.frames.count).toBe(16);
      expect(dd.details).toMatchObject({ interval: 1, sampledFrames: 16 });
      for (const s of r.scores) {
        expect(s.frames.fpsAssumed).toBe(true);
        expect(s.frames.fps).toBeCloseTo(10, 9);
      }
    }
  });

  it('a probe kept by an earlier engine (no fpsAssumed) is taken again', async () => {
    const path = await gif('no-gce', all(null));
    const { fpsAssumed: _fpsAssumed, ...old } = await probe(path);
    const kept = { ...old, fps: 100, durationSeconds: 0.16 };
    const r = await engine.evaluate(path, {
      dimensions: ['dynamic_degree'],
      probe: kept as unknown as Parameters<Engine['evaluate']>[1]['probe'],
    });
    expect(r.probe.fps).toBeCloseTo(10, 9);
    expect(r.scores[0]!.frames.count).toBe(16);
  });
});

describe('streams that state no rate', () => {
  it('with a duration: frames / duration, not assumed', () => {
    expect(statedTiming(0, 2, 50)).toEqual({ fps: 25, durationSeconds: 2, fpsAssumed: false });
    expect(statedTiming(Number.NaN, 4, 50)).toEqual({ fps: 12.5, durationSeconds: 4, fpsAssumed: false });
  });

  it('with neither rate nor duration: 25 fps (FFmpeg convention), assumed', () => {
    expect(statedTiming(0, 0, 50)).toEqual({ fps: 25, durationSeconds: 2, fpsAssumed: true });
  });

  it('a stated rate stands; the duration falls back to frames / rate', () => {
    expect(statedTiming(30, 0, 60)).toEqual({ fps: 30, durationSeconds: 2, fpsAssumed: false });
    expect(statedTiming(30, 2.5, 60)).toEqual({ fps: 30, durationSeconds: 2.5, fpsAssumed: false });
  });
});
