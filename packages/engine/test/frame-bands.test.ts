/**
 * Large frames in bands (issue #24, item 13): frames above a size reach the methods as bands of
 * rows, so neither the decoding thread nor the native-resolution methods ever hold one whole.
 * Bands are forced here on a small clip (every output banded, a band a few rows) and must give
 * exactly what whole frames give: the decoded bytes, each method's outcome, the whole evaluation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../src/contract.js';
import { defaultFfmpegPath, defaultFfprobePath } from '../src/decode/binaries.js';
import { listDecodableCodecs } from '../src/decode/codecs.js';
import { decoderThreadsFor, streamFrames } from '../src/decode/frame-stream.js';
import type { FrameOutput } from '../src/decode/frame-stream.js';
import { resolveLimits } from '../src/decode/limits.js';
import { probeVideo } from '../src/decode/probe.js';
import type { ProbedVideo } from '../src/decode/probe.js';
import { aestheticQualityLite } from '../src/dimensions/aesthetic-quality.js';
import { imagingQualityLite } from '../src/dimensions/imaging-quality.js';
import { startScalarFlickerRun, temporalFlickeringVbench } from '../src/dimensions/temporal-flickering.js';
import { createEngine } from '../src/engine.js';
import type { DimensionMethod, FrameBand, MethodRun } from '../src/method-contract.js';
import { QUALITY } from './helpers/corpus-scores.js';
import { encodeLavfi } from './helpers/synth.js';

let dir: string;
let clip: string;
let probe: ProbedVideo;
const W = 320;
const H = 180;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-bands-'));
  clip = join(dir, 'noise.mp4');
  await encodeLavfi(clip, `testsrc2=size=${W}x${H}:rate=24,noise=alls=12:allf=t`, {
    width: W,
    height: H,
    frames: 24,
    fps: 24,
  });
  probe = await probeVideo(clip, {
    ffprobePath: defaultFfprobePath(),
    limits: resolveLimits({}),
    decodableCodecs: await listDecodableCodecs(defaultFfmpegPath()),
  });
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const native: FrameOutput = { sampling: { kind: 'all' }, maxSide: null, channels: 3 };
const working: FrameOutput = { sampling: { kind: 'all' }, maxSide: 64, channels: 3 };

async function decode(bands: { bandAboveBytes?: number; bandBytes?: number }) {
  const groups = [];
  for await (const g of streamFrames(clip, probe, {
    ffmpegPath: defaultFfmpegPath(),
    outputs: [native, working],
    maxFrames: 1000,
    ...bands,
  }))
    groups.push(g);
  return groups;
}

describe('frame bands', () => {
  it('the decoder yields a large frame as bands no bigger than asked, in row order, with the same bytes', async () => {
    const whole = await decode({});
    const rowBytes = W * 3;
    const bandBytes = 7 * rowBytes + 5; // 7 rows; the last band of a frame is shorter (180 = 25·7 + 5)
    const banded = await decode({ bandAboveBytes: 0, bandBytes });
    expect(whole.every((g) => g.frames.every((f) => f.band === undefined))).toBe(true);
    const frames = new Map<string, Uint8Array>();
    let largest = 0;
    const next = new Map<number, number>();
    for (const g of banded) {
      for (const f of g.frames) {
        expect(f.band).toBeDefined();
        const b = f.band!;
        largest = Math.max(largest, f.frame.data.length);
        expect(b.y).toBe(next.get(f.output) ?? 0);
        expect(f.frame.data.length).toBe(b.rows * f.frame.width * 3);
        expect(b.last).toBe(b.y + b.rows === f.frame.height);
        next.set(f.output, b.last ? 0 : b.y + b.rows);
        const key = `${f.output}:${g.index}`;
        const buf = frames.get(key) ?? new Uint8Array(f.frame.width * f.frame.height * 3);
        buf.set(f.frame.data, b.y * f.frame.width * 3);
        frames.set(key, buf);
      }
    }
    expect(largest).toBeLessThanOrEqual(bandBytes);
    const expected = new Map<string, Uint8Array>();
    for (const g of whole) for (const f of g.frames) expected.set(`${f.output}:${g.index}`, f.frame.data);
    expect([...frames.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, v] of expected) expect(Buffer.compare(frames.get(k)!, v), k).toBe(0);
  });

  it('FFmpeg decodes very large frames with few threads (a bounded number of frames in flight)', () => {
    expect(decoderThreadsFor(1920, 1080)).toBeUndefined();
    expect(decoderThreadsFor(3840, 2160)).toBe(2);
    expect(decoderThreadsFor(7680, 4320)).toBe(1);
  });

  /** Splits a frame into bands of `rows` rows. */
  function bandsOf(frame: Frame, rows: number): FrameBand[] {
    const out: FrameBand[] = [];
    const rowBytes = frame.width * frame.channels;
    for (let y = 0; y < frame.height; y += rows) {
      const n = Math.min(rows, frame.height - y);
      out.push({
        ...frame,
        y,
        rows: n,
        last: y + n === frame.height,
        data: frame.data.slice(y * rowBytes, (y + n) * rowBytes),
      });
    }
    return out;
  }

  it('each native method gives the same outcome from bands as from whole frames', async () => {
    const frames: Frame[] = [];
    for await (const g of streamFrames(clip, probe, {
      ffmpegPath: defaultFfmpegPath(),
      outputs: [native],
      maxFrames: 1000,
    }))
      frames.push(g.frames[0]!.frame);
    const cases: Array<[string, () => MethodRun]> = [
      ...[temporalFlickeringVbench, aestheticQualityLite, imagingQualityLite].map(
        (m: DimensionMethod): [string, () => MethodRun] => [m.dimension, () => m.start({ probe })],
      ),
      ['temporal_flickering (scalar)', startScalarFlickerRun],
    ];
    for (const [name, start] of cases) {
      const whole = start();
      for (const f of frames) whole.push(f);
      const banded = start();
      expect(typeof banded.pushBand, name).toBe('function');
      for (const f of frames) for (const b of bandsOf(f, 13)) banded.pushBand!(b);
      expect(banded.finish(), name).toEqual(whole.finish());
    }
  });

  it('rejects bands out of order', () => {
    const run = temporalFlickeringVbench.start({ probe });
    const frame: Frame = {
      index: 0,
      timeSeconds: 0,
      width: 4,
      height: 4,
      channels: 3,
      data: new Uint8Array(48),
    };
    const [first, second] = bandsOf(frame, 2);
    expect(() => run.pushBand!(second!)).toThrow(/inconsistent bands/);
    const other = temporalFlickeringVbench.start({ probe });
    other.pushBand!(first!);
    expect(() => other.pushBand!(first!)).toThrow(/inconsistent bands/);
  });

  it(
    'an evaluation with every output in bands scores exactly as with whole frames',
    { timeout: 120_000 },
    async () => {
      const plain = createEngine({ threads: 2 });
      const banded = createEngine({ threads: 2, frameBands: { aboveBytes: 0, bytes: 11 * W * 3 } });
      try {
        const a = await plain.evaluate(clip, { dimensions: QUALITY });
        const b = await banded.evaluate(clip, { dimensions: QUALITY });
        expect(b.failures).toEqual([]);
        const strip = (r: typeof a) => r.scores.map(({ elapsedMs: _e, ...s }) => s);
        expect(strip(b)).toEqual(strip(a));
      } finally {
        await plain.close();
        await banded.close();
      }
    },
  );
});
