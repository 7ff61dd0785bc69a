import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../src/contract.js';
import type { FrameSampling } from '../src/contract.js';
import { defaultFfmpegPath, defaultFfprobePath } from '../src/decode/binaries.js';
import { listDecodableCodecs } from '../src/decode/codecs.js';
import { streamFrames } from '../src/decode/frame-stream.js';
import type { FrameGroup, FrameOutput } from '../src/decode/frame-stream.js';
import { resolveLimits } from '../src/decode/limits.js';
import { probeVideo } from '../src/decode/probe.js';
import type { ProbedVideo } from '../src/decode/probe.js';
import { sampleIndices, uniformIndices } from '../src/decode/sampling.js';
import { encodeFrames, scenes } from './helpers/synth.js';
import type { FrameDrawer, SynthOptions } from './helpers/synth.js';

const limits = resolveLimits({});
let dir = '';
let decodable: Set<string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-decode-'));
  decodable = await listDecodableCodecs(defaultFfmpegPath());
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function probe(path: string): Promise<ProbedVideo> {
  return probeVideo(path, { ffprobePath: defaultFfprobePath(), limits, decodableCodecs: decodable });
}

type Out = Omit<FrameOutput, 'sampling'>;

async function collect(
  path: string,
  p: ProbedVideo,
  sampling: FrameSampling,
  outputs: Out[],
  signal?: AbortSignal,
): Promise<FrameGroup[]> {
  const out: FrameGroup[] = [];
  const withSampling = outputs.map((o) => ({ ...o, sampling }));
  for await (const g of streamFrames(path, p, {
    ffmpegPath: defaultFfmpegPath(),
    outputs: withSampling,
    maxFrames: 100_000,
    signal,
  }))
    out.push(g);
  return out;
}

/** Frame i is a flat grey of level 10 + 8·i: its decoded mean identifies the source index. */
const levels: FrameDrawer = (i, f) => f.fill(10 + 8 * i);
const levelOf = (g: FrameGroup): number => {
  const d = g.frames[0]!.frame.data;
  let s = 0;
  for (const v of d) s += v;
  return Math.round((s / d.length - 10) / 8);
};

const base: SynthOptions = { width: 64, height: 48, frames: 30, fps: 10 };

describe('frame sampling', () => {
  it("uniform sampling reproduces VBench's middle sampler (numpy linspace reference values)", () => {
    expect(uniformIndices(8, 16)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(uniformIndices(16, 16)).toEqual([...Array(16).keys()]);
    expect(uniformIndices(16, 29)).toEqual([0, 1, 3, 5, 7, 9, 10, 12, 14, 16, 18, 19, 21, 23, 25, 27]);
    expect(uniformIndices(16, 7)).toEqual([0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]);
    expect(uniformIndices(16, 100)).toEqual([2, 8, 14, 21, 27, 33, 39, 46, 52, 58, 64, 71, 77, 83, 89, 96]);
    expect(uniformIndices(8, 795)).toEqual([49, 148, 247, 347, 446, 545, 645, 744]);
    expect(uniformIndices(8, 33)).toEqual([1, 5, 9, 13, 17, 21, 25, 30]);
  });

  it('every-k and fps sampling pick the expected indices', () => {
    expect(sampleIndices({ kind: 'every', step: 4 }, 10, 30)).toEqual([0, 4, 8]);
    expect(sampleIndices({ kind: 'fps', fps: 10 }, 9, 30)).toEqual([0, 3, 6]);
    expect(sampleIndices({ kind: 'fps', fps: 60 }, 3, 30)).toEqual([0, 1, 2]);
  });
});

describe('probe', () => {
  it('reports container, codec, size, fps, exact frame count, duration and size', async () => {
    const clip = await encodeFrames(join(dir, 'p.mp4'), base, scenes.movingPattern(0.3));
    const p = await probe(clip.path);
    expect(p).toMatchObject({
      codec: 'h264',
      width: 64,
      height: 48,
      rotation: 0,
      displayWidth: 64,
      displayHeight: 48,
      fps: 10,
      frameCount: 30,
      frameCountExact: true,
    });
    expect(p.container).toContain('mp4');
    expect(p.durationSeconds).toBeCloseTo(3, 1);
    expect(p.sizeBytes).toBeGreaterThan(0);
    expect(p.bitRate).toBeGreaterThan(0);
  });

  it('counts packets when the container has no frame count (WebM)', async () => {
    const clip = await encodeFrames(join(dir, 'p.webm'), { ...base, frames: 13 }, scenes.noise(0.2));
    const p = await probe(clip.path);
    expect(p).toMatchObject({ codec: 'vp9', frameCount: 13, frameCountExact: true });
    expect(p.container).toContain('webm');
  });

  it('refuses a codec the decoder cannot decode (unsupported_codec), from the codec list of the binary', async () => {
    expect([...decodable]).toEqual(expect.arrayContaining(['h264', 'hevc', 'vp9', 'mpeg4', 'gif', 'av1']));
    const clip = await encodeFrames(join(dir, 'codec.mp4'), { ...base, frames: 3 }, scenes.static());
    const withoutH264 = new Set([...decodable].filter((c) => c !== 'h264'));
    await expect(
      probeVideo(clip.path, { ffprobePath: defaultFfprobePath(), limits, decodableCodecs: withoutH264 }),
    ).rejects.toMatchObject({ code: 'unsupported_codec' });
  });

  it('enforces limits before decoding', async () => {
    const clip = await encodeFrames(join(dir, 'limits.mp4'), base, scenes.static());
    const run = (l: Parameters<typeof resolveLimits>[0]) =>
      probeVideo(clip.path, { ffprobePath: defaultFfprobePath(), limits: resolveLimits(l) });
    await expect(run({ maxWidth: 32, maxHeight: 32 })).rejects.toMatchObject({
      code: 'resolution_too_large',
    });
    await expect(run({ maxPixels: 1000 })).rejects.toMatchObject({ code: 'resolution_too_large' });
    await expect(run({ maxDurationSeconds: 1 })).rejects.toMatchObject({ code: 'duration_too_long' });
    await expect(run({ maxFrames: 10 })).rejects.toMatchObject({ code: 'too_many_frames' });
    await expect(run({ maxFileBytes: 100 })).rejects.toMatchObject({ code: 'file_too_large' });
  });
});

describe('frame streaming', () => {
  it('delivers every frame in source order with passthrough timing', async () => {
    const clip = await encodeFrames(
      join(dir, 'levels.mp4'),
      { ...base, crf: 0, pixelFormat: 'yuv444p' },
      levels,
    );
    const p = await probe(clip.path);
    const groups = await collect(clip.path, p, { kind: 'all' }, [{ maxSide: null, channels: 3 }]);
    expect(groups.map((g) => g.index)).toEqual([...Array(30).keys()]);
    expect(groups.map(levelOf)).toEqual([...Array(30).keys()]);
    expect(groups[3]!.timeSeconds).toBeCloseTo(0.3, 6);
    expect(groups[0]!.frames[0]!.frame).toMatchObject({ width: 64, height: 48, channels: 3 });
    expect(groups[0]!.frames[0]!.frame.data.length).toBe(64 * 48 * 3);
  });

  it('selects every-k, uniform and fps samplings inside ffmpeg, matching the source indices', async () => {
    const clip = await encodeFrames(
      join(dir, 'levels2.mp4'),
      { ...base, crf: 0, pixelFormat: 'yuv444p' },
      levels,
    );
    const p = await probe(clip.path);
    const out: Out[] = [{ maxSide: null, channels: 3 }];
    const every = await collect(clip.path, p, { kind: 'every', step: 4 }, out);
    expect(every.map((g) => g.index)).toEqual([0, 4, 8, 12, 16, 20, 24, 28]);
    expect(every.map(levelOf)).toEqual([0, 4, 8, 12, 16, 20, 24, 28]);
    const uniform = await collect(clip.path, p, { kind: 'uniform', count: 8 }, out);
    expect(uniform.map((g) => g.index)).toEqual(uniformIndices(8, 30));
    expect(uniform.map(levelOf)).toEqual(uniformIndices(8, 30));
    const fps = await collect(clip.path, p, { kind: 'fps', fps: 4 }, out);
    expect(fps.map((g) => g.index)).toEqual(sampleIndices({ kind: 'fps', fps: 4 }, 30, 10));
    expect(fps.map(levelOf)).toEqual(sampleIndices({ kind: 'fps', fps: 4 }, 30, 10));
  });

  it('serves several sizes and channel layouts from one ffmpeg process', async () => {
    const clip = await encodeFrames(
      join(dir, 'multi.mp4'),
      { ...base, width: 320, height: 180, frames: 12 },
      scenes.movingPattern(0.5),
    );
    const p = await probe(clip.path);
    const groups = await collect(clip.path, p, { kind: 'all' }, [
      { maxSide: null, channels: 3 },
      { maxSide: 64, channels: 1 },
      { maxSide: 100, channels: 3 },
    ]);
    expect(groups).toHaveLength(12);
    for (const g of groups) {
      expect(g.frames.map(({ frame: f }) => [f.width, f.height, f.channels, f.data.length])).toEqual([
        [320, 180, 3, 320 * 180 * 3],
        [64, 36, 1, 64 * 36],
        [100, 56, 3, 100 * 56 * 3],
      ]);
      // Each frame owns its buffer, so it can be transferred to a worker.
      expect(g.frames[0]!.frame.data.byteLength).toBe(g.frames[0]!.frame.data.buffer.byteLength);
    }
  });

  it('serves different samplings from the same single decode, merged in source order', async () => {
    const clip = await encodeFrames(
      join(dir, 'mixed.mp4'),
      { ...base, crf: 0, pixelFormat: 'yuv444p' },
      levels,
    );
    const p = await probe(clip.path);
    const groups: FrameGroup[] = [];
    for await (const g of streamFrames(clip.path, p, {
      ffmpegPath: defaultFfmpegPath(),
      outputs: [
        { sampling: { kind: 'uniform', count: 4 }, maxSide: null, channels: 3 },
        { sampling: { kind: 'every', step: 10 }, maxSide: 16, channels: 1 },
        { sampling: { kind: 'all' }, maxSide: 8, channels: 3 },
        { sampling: { kind: 'uniform', count: 40 }, maxSide: 8, channels: 1 },
      ],
      maxFrames: 1000,
      highWaterFrames: 1,
    }))
      groups.push(g);
    expect(groups.map((g) => g.index)).toEqual([...Array(30).keys()]);
    const of = (o: number) =>
      groups.flatMap((g) => g.frames.filter((f) => f.output === o).map((f) => f.frame.index));
    expect(of(0)).toEqual(uniformIndices(4, 30));
    expect(of(1)).toEqual([0, 10, 20]);
    expect(of(2)).toEqual([...Array(30).keys()]);
    // 40 uniform samples of 30 frames: every frame, the last one pushed 11 times.
    expect(of(3)).toEqual([...Array(30).keys()]);
    expect(groups[29]!.frames.find((f) => f.output === 3)!.repeat).toBe(11);
    for (const g of groups) for (const f of g.frames) expect(f.frame.index).toBe(g.index);
    expect(groups[10]!.frames.find((f) => f.output === 0 || f.output === 1)).toBeDefined();
    // The full-size uniform output carries the right pixels.
    const u = groups.flatMap((g) => g.frames.filter((f) => f.output === 0));
    expect(u.map((f) => Math.round((f.frame.data[0]! - 10) / 8))).toEqual(uniformIndices(4, 30));
  });

  it('keeps memory bounded with a slow consumer and does not deadlock across outputs', async () => {
    const clip = await encodeFrames(
      join(dir, 'slow.mp4'),
      { ...base, width: 320, height: 240, frames: 90, fps: 30 },
      scenes.noise(0.5),
    );
    const p = await probe(clip.path);
    let n = 0;
    for await (const g of streamFrames(clip.path, p, {
      ffmpegPath: defaultFfmpegPath(),
      outputs: [
        { sampling: { kind: 'all' }, maxSide: null, channels: 3 },
        { sampling: { kind: 'all' }, maxSide: 32, channels: 1 },
      ],
      maxFrames: 1000,
      highWaterFrames: 1,
    })) {
      expect(g.index).toBe(n++);
      if (n % 10 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(n).toBe(90);
  });

  it('applies display rotation so frames arrive as a viewer sees them', async () => {
    // A red block in the top-left corner of a 64x32 frame.
    const marker: FrameDrawer = (_i, f, w) => {
      for (let y = 0; y < 8; y++)
        for (let x = 0; x < 8; x++) {
          const q = (y * w + x) * 3;
          f[q] = 255;
        }
    };
    const clip = await encodeFrames(
      join(dir, 'rot.mp4'),
      { ...base, width: 64, height: 32, frames: 3, rotate: 90 },
      marker,
    );
    const p = await probe(clip.path);
    expect([90, 270]).toContain(p.rotation);
    expect([p.displayWidth, p.displayHeight]).toEqual([32, 64]);
    const [g] = await collect(clip.path, p, { kind: 'all' }, [{ maxSide: null, channels: 3 }]);
    const f = g!.frames[0]!.frame;
    expect([f.width, f.height]).toEqual([32, 64]);
    const red = (x: number, y: number): number => f.data[(y * f.width + x) * 3]!;
    // Clockwise 90°: top-left moves to top-right; 270°: to bottom-left.
    const [ex, ey] = p.rotation === 90 ? [f.width - 3, 2] : [2, f.height - 3];
    expect(red(ex, ey)).toBeGreaterThan(200);
    expect(red(2, 2)).toBeLessThan(60);
  });

  it('stops with too_many_frames when a stream delivers more frames than the limit', async () => {
    const clip = await encodeFrames(join(dir, 'many.mp4'), { ...base, frames: 30 }, scenes.static());
    const p = await probe(clip.path);
    const run = async (): Promise<number> => {
      let n = 0;
      for await (const _g of streamFrames(clip.path, p, {
        ffmpegPath: defaultFfmpegPath(),
        outputs: [{ sampling: { kind: 'all' }, maxSide: 8, channels: 1 }],
        maxFrames: 10,
      }))
        n++;
      return n;
    };
    await expect(run()).rejects.toMatchObject({ code: 'too_many_frames' });
  });

  it('reports decode_failed when ffmpeg cannot run or fails', async () => {
    const clip = await encodeFrames(join(dir, 'fail.mp4'), { ...base, frames: 3 }, scenes.static());
    const p = await probe(clip.path);
    const run = async (ffmpegPath: string, path = clip.path): Promise<void> => {
      for await (const _g of streamFrames(path, p, {
        ffmpegPath,
        outputs: [{ sampling: { kind: 'all' }, maxSide: 8, channels: 1 }],
        maxFrames: 100,
      }))
        void _g;
    };
    await expect(run(join(dir, 'no-such-ffmpeg'))).rejects.toMatchObject({ code: 'decode_failed' });
    await expect(run(defaultFfmpegPath(), join(dir, 'vanished.mp4'))).rejects.toMatchObject({
      code: 'decode_failed',
    });
  });

  it('stops ffmpeg when aborted', async () => {
    const clip = await encodeFrames(
      join(dir, 'abort.mp4'),
      { ...base, frames: 60 },
      scenes.movingPattern(0.2),
    );
    const p = await probe(clip.path);
    const ac = new AbortController();
    let n = 0;
    const run = (async () => {
      for await (const _g of streamFrames(clip.path, p, {
        ffmpegPath: defaultFfmpegPath(),
        outputs: [{ sampling: { kind: 'all' }, maxSide: null, channels: 3 }],
        maxFrames: 1000,
        signal: ac.signal,
      })) {
        if (++n === 5) ac.abort();
      }
    })();
    await expect(run).rejects.toBeInstanceOf(EngineError);
    await expect(run).rejects.toMatchObject({ code: 'aborted' });
    expect(n).toBe(5);
  });

  it.each([
    ['hevc.mp4', 'hevc', { codec: 'hevc' as const }],
    ['vp9.webm', 'vp9', {}],
    ['mpeg4.avi', 'mpeg4', {}],
    ['h264.mov', 'h264', {}],
    ['anim.gif', 'gif', {}],
    ['av1.mp4', 'av1', { codec: 'av1' as const, crf: 40 }],
  ])('decodes %s (%s)', async (name, codec, extra) => {
    const clip = await encodeFrames(
      join(dir, name),
      { ...base, frames: 6, ...extra },
      scenes.movingPattern(0.5),
    );
    const p = await probe(clip.path);
    expect(p.codec).toBe(codec);
    expect(p.frameCount).toBe(6);
    const groups = await collect(clip.path, p, { kind: 'all' }, [{ maxSide: 32, channels: 1 }]);
    expect(groups.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(groups[0]!.frames[0]!.frame).toMatchObject({ width: 32, height: 24, channels: 1 });
  });
});
