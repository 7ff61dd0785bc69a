/**
 * Frame buffers reused across one evaluation (issue #24 item 12): shared buffers of an output
 * whose every run declares `releasesFrames` come back once the worker has acknowledged them, and
 * only those; frames in shared buffers are not transferred (nothing is detached); the decoder
 * fills reused buffers completely; `FramePicker` keeps its spare frame as a copy.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../src/contract.js';
import { defaultFfmpegPath, defaultFfprobePath } from '../src/decode/binaries.js';
import { listDecodableCodecs } from '../src/decode/codecs.js';
import { FrameBuffers } from '../src/decode/frame-buffers.js';
import { streamFrames } from '../src/decode/frame-stream.js';
import type { FrameOutput } from '../src/decode/frame-stream.js';
import { resolveLimits } from '../src/decode/limits.js';
import { probeVideo } from '../src/decode/probe.js';
import { FramePicker } from '../src/dimensions/working.js';
import { WorkerPool } from '../src/workers/pool.js';
import { encodeFrames, scenes } from './helpers/synth.js';
import { TEST_CATALOG_URL, TSX_LOADER_URL, smallClipProbe } from './helpers/catalog-workers.js';

const catalogUrl = TEST_CATALOG_URL;
const tsxApi = TSX_LOADER_URL;
const probe = smallClipProbe(9);

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-frame-buffers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** VBench's flicker value of grey frames whose pixel i of frame k is `pixel(k, i)`. */
function expectedMae(frames: Uint8Array[]): number {
  let total = 0;
  for (let k = 1; k < frames.length; k++) {
    let s = 0;
    for (let i = 0; i < frames[k]!.length; i++) s += Math.abs(frames[k]![i]! - frames[k - 1]![i]!);
    total += s / frames[k]!.length;
  }
  return (255 - total / (frames.length - 1)) / 255;
}

describe('frame buffers reused across an evaluation', () => {
  it('a job gives back the shared buffers of its recycled outputs once acknowledged, shared not transferred', async () => {
    const pool = new WorkerPool({
      size: 1,
      script: new URL('../src/workers/evaluation-worker.ts', import.meta.url),
      tsxApi,
      maxInFlight: 3,
    });
    const sent0 = new Set<SharedArrayBuffer>();
    const given: SharedArrayBuffer[] = [];
    const buffers = new FrameBuffers();
    const sink = {
      give(b: SharedArrayBuffer) {
        given.push(b);
        // What the decoder does with a buffer it takes back: overwrite it with a later frame.
        new Uint8Array(b).fill(255);
        buffers.give(b);
      },
    };
    try {
      const job = pool.start(
        catalogUrl,
        [
          { run: 0, dimension: 'temporal_flickering', method: 'test-mae-releasing', output: 0 },
          { run: 1, dimension: 'temporal_flickering', method: 'test-mae', output: 1 },
        ],
        { probe },
        undefined,
        // Output 1 is read by test-mae, which keeps the previous frame itself: not recycled.
        { outputs: new Set([0]), sink },
      );
      const big: Uint8Array[] = [];
      const small: Uint8Array[] = [];
      const frames = 9;
      for (let k = 0; k < frames; k++) {
        const a = buffers.take(32 * 32);
        for (let i = 0; i < a.length; i++) a[i] = (k * 37 + i * 11) % 251;
        const b = new Uint8Array(new SharedArrayBuffer(16 * 16));
        for (let i = 0; i < b.length; i++) b[i] = (k * 53 + i * 7) % 241;
        sent0.add(a.buffer as SharedArrayBuffer);
        big.push(new Uint8Array(a));
        small.push(new Uint8Array(b));
        const frame = (data: Uint8Array, side: number): Frame => ({
          index: k,
          timeSeconds: k / 10,
          width: side,
          height: side,
          channels: 1,
          data,
        });
        await job.send([
          { output: 0, repeat: 1, frame: frame(a, 32) },
          { output: 1, repeat: 1, frame: frame(b, 16) },
        ]);
        // Shared, not transferred: the sender's views stay attached.
        expect(a.byteLength).toBe(32 * 32);
        expect(b.byteLength).toBe(16 * 16);
      }
      const results = await job.finish();
      // Output 0's buffers came back (the very objects sent) and were reused for later frames.
      expect(given.length).toBeGreaterThan(0);
      for (const b of given) expect(sent0.has(b)).toBe(true);
      expect(sent0.size).toBeLessThan(frames);
      // Overwriting the given-back buffers changed no value.
      const value = (run: number): number => {
        const r = results.find((x) => x.run === run)!;
        if (!r.ok) throw new Error(r.detail);
        return r.outcome.value;
      };
      expect(value(0)).toBeCloseTo(expectedMae(big), 12);
      expect(value(1)).toBeCloseTo(expectedMae(small), 12);
    } finally {
      await pool.close();
    }
  });

  it('recycles an output only when every run reading it releases frames', async () => {
    const { planEvaluation } = await import('../src/pipeline/plan.js');
    const { recycledOutputs } = await import('../src/pipeline/evaluate.js');
    const catalog = await import('./helpers/test-catalog.js');
    const plan = planEvaluation(
      probe,
      {
        dimensions: ['temporal_flickering', 'subject_consistency', 'dynamic_degree'],
        methods: { temporal_flickering: 'test-mae-releasing' },
      },
      catalog,
      {},
    );
    const byDimension = (d: string): number => plan.runs.find((r) => r.dimension === d)!.output;
    // test-mae-releasing and test-mean-luma share the small grey output; test-mean-luma holds
    // nothing but does not declare it, so that output is not recycled.
    expect(byDimension('temporal_flickering')).toBe(byDimension('subject_consistency'));
    expect(recycledOutputs(plan).has(byDimension('temporal_flickering'))).toBe(false);
    const alone = planEvaluation(
      probe,
      { dimensions: ['temporal_flickering'], methods: { temporal_flickering: 'test-mae-releasing' } },
      catalog,
      {},
    );
    expect([...recycledOutputs(alone)]).toEqual([alone.runs[0]!.output]);
  });

  it('the decoder overwrites every byte of a reused buffer: the same frames as without reuse', async () => {
    const clip = await encodeFrames(
      join(dir, 'noise.mp4'),
      { width: 64, height: 48, frames: 24, fps: 10 },
      scenes.noise(0.5),
    );
    const p = await probeVideo(clip.path, {
      ffprobePath: defaultFfprobePath(),
      limits: resolveLimits({}),
      decodableCodecs: await listDecodableCodecs(defaultFfmpegPath()),
    });
    const outputs: FrameOutput[] = [
      { sampling: { kind: 'all' }, maxSide: null, channels: 3 },
      { sampling: { kind: 'every', step: 3 }, maxSide: 32, channels: 1 },
    ];
    const decode = async (buffers?: FrameBuffers): Promise<string[]> => {
      const seen: string[] = [];
      for await (const g of streamFrames(clip.path, p, {
        ffmpegPath: defaultFfmpegPath(),
        outputs,
        maxFrames: 1000,
        ...(buffers ? { buffers: outputs.map(() => buffers) } : {}),
      })) {
        for (const f of g.frames) {
          seen.push(`${f.output}:${f.frame.index}:${Buffer.from(f.frame.data).toString('base64')}`);
          // Given back dirty: a byte the decoder failed to write would show in a later frame.
          if (buffers) {
            f.frame.data.fill(0xa5);
            buffers.give(f.frame.data.buffer as SharedArrayBuffer);
          }
        }
      }
      return seen;
    };
    const plain = await decode();
    let reused = 0;
    const buffers = new FrameBuffers();
    const take = buffers.take.bind(buffers);
    buffers.take = (length: number) => {
      if (buffers.heldBytes > 0) reused++;
      return take(length);
    };
    const recycled = await decode(buffers);
    expect(reused).toBeGreaterThan(10);
    expect(recycled).toEqual(plain);
  });
});

describe('FramePicker', () => {
  it('keeps its spare frame as a copy: the pushed frame may be overwritten after push', () => {
    // 160 frames, 8 picks: the first pick is ordinal 9.
    const picker = new FramePicker({ frameCount: 160, fps: 30, durationSeconds: 160 / 30 } as never, 8);
    for (let k = 0; k < 3; k++) {
      const data = new Uint8Array(12).fill(k + 1);
      expect(picker.next({ index: k, timeSeconds: k / 30, width: 2, height: 2, channels: 3, data })).toBe(
        false,
      );
      data.fill(99);
    }
    const spare = picker.fallback();
    expect(spare?.index).toBe(2);
    expect([...spare!.data]).toEqual(new Array(12).fill(3));
  });
});
