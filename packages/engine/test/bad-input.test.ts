/**
 * Hostile and unusual inputs: each gets a stable error code or a documented result (see
 * docs/decoding.md), never a crash, a hang or an unbounded allocation.
 */
import { open, readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/contract.js';
import { createEngine } from '../src/engine.js';
import { encodeFrames, ffmpeg, scenes } from './helpers/synth.js';
import type { FrameDrawer } from './helpers/synth.js';
import * as testCatalog from './helpers/test-catalog.js';

let dir = '';
let engine: Engine;
const dims = ['subject_consistency', 'temporal_flickering'] as const;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-bad-'));
  engine = createEngine({
    threads: 1,
    catalog: { module: new URL('./helpers/test-catalog.ts', import.meta.url), exports: testCatalog },
  });
});
afterAll(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

const evaluate = (path: string) => engine.evaluate(path, { dimensions: [...dims] });

describe('bad input', () => {
  it('readiness: ready with its FFmpeg binaries, not ready without them', async () => {
    await expect(engine.checkReady()).resolves.toBeUndefined();
    const broken = createEngine({ threads: 1, ffmpegPath: '/nonexistent/ffmpeg' });
    try {
      await expect(broken.checkReady()).rejects.toThrow(/ENOENT/);
    } finally {
      await broken.close();
    }
  });

  it('zero bytes: empty_file', async () => {
    const path = join(dir, 'empty.mp4');
    await writeFile(path, '');
    await expect(engine.probe(path)).rejects.toMatchObject({ code: 'empty_file' });
    await expect(evaluate(path)).rejects.toMatchObject({ code: 'empty_file' });
  });

  it('missing file: not_a_video', async () => {
    await expect(engine.probe(join(dir, 'nope.mp4'))).rejects.toMatchObject({ code: 'not_a_video' });
  });

  it('not a video (text, random bytes): not_a_video', async () => {
    const text = join(dir, 'notes.mp4');
    await writeFile(text, 'hello, this is not a video\n'.repeat(100));
    await expect(engine.probe(text)).rejects.toMatchObject({ code: 'not_a_video' });
    const noise = join(dir, 'noise.bin');
    const bytes = new Uint8Array(64 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    await writeFile(noise, bytes);
    await expect(engine.probe(noise)).rejects.toMatchObject({ code: 'not_a_video' });
  });

  it('audio only: no_video_stream', async () => {
    const path = join(dir, 'tone.m4a');
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', path]);
    await expect(engine.probe(path)).rejects.toMatchObject({ code: 'no_video_stream' });
  });

  it('truncated MP4 (index at the end, cut in half): truncated', async () => {
    const clip = await encodeFrames(
      join(dir, 'whole.mp4'),
      { width: 64, height: 48, frames: 30, fps: 10 },
      scenes.noise(0.5),
    );
    const bytes = await readFile(clip.path);
    const cut = join(dir, 'cut.mp4');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(engine.probe(cut)).rejects.toMatchObject({ code: 'truncated' });
  });

  it('truncated MP4 (index first, frames cut off): truncated at decode', async () => {
    const clip = await encodeFrames(
      join(dir, 'fast.mp4'),
      { width: 64, height: 48, frames: 40, fps: 10, extraArgs: ['-movflags', '+faststart'] },
      scenes.noise(0.5),
    );
    const bytes = await readFile(clip.path);
    const cut = join(dir, 'fastcut.mp4');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.5)));
    const probe = await engine.probe(cut);
    expect(probe.frameCount).toBe(40);
    await expect(evaluate(cut)).rejects.toMatchObject({ code: 'truncated' });
  });

  it('a header declaring 100000x100000: resolution_too_large, without allocating a frame', async () => {
    const path = join(dir, 'huge.y4m');
    await writeFile(
      path,
      Buffer.concat([
        Buffer.from('YUV4MPEG2 W100000 H100000 F25:1 Ip A1:1 C420jpeg\nFRAME\n'),
        Buffer.alloc(4096, 7),
      ]),
    );
    await expect(engine.probe(path)).rejects.toMatchObject({ code: 'resolution_too_large' });
    await expect(evaluate(path)).rejects.toMatchObject({ code: 'resolution_too_large' });
    // 16000x16000 is a size FFmpeg accepts: the engine's own limit refuses it before decoding.
    const big = join(dir, 'big.y4m');
    await writeFile(
      big,
      Buffer.concat([
        Buffer.from('YUV4MPEG2 W16000 H16000 F25:1 Ip A1:1 C420jpeg\nFRAME\n'),
        Buffer.alloc(4096, 7),
      ]),
    );
    await expect(engine.probe(big)).rejects.toMatchObject({ code: 'resolution_too_large' });
  });

  it('a header patched to a huge size inside an MP4: resolution_too_large', async () => {
    const clip = await encodeFrames(
      join(dir, 'patch.mp4'),
      { width: 64, height: 48, frames: 5, fps: 10 },
      scenes.static(),
    );
    const bytes = Buffer.from(await readFile(clip.path));
    // tkhd stores width/height as 16.16 fixed point; the avc1 sample entry as 16-bit ints, and the
    // SPS holds the real size. Patch the avc1 entry and tkhd: ffprobe reports the container's claim.
    const avc1 = bytes.indexOf('avc1', 0, 'latin1');
    bytes.writeUInt16BE(60000, avc1 + 4 + 24);
    bytes.writeUInt16BE(60000, avc1 + 4 + 26);
    const path = join(dir, 'patched.mp4');
    await writeFile(path, bytes);
    const result = await engine.probe(path).then(
      (p) => ({ ok: true as const, p }),
      (e: unknown) => ({ ok: false as const, code: (e as { code: string }).code }),
    );
    // FFmpeg trusts the SPS over the sample entry: either the real size is reported, or the claim is refused.
    if (result.ok) expect([result.p.width, result.p.height]).toEqual([64, 48]);
    else expect(['resolution_too_large', 'not_a_video']).toContain(result.code);
  });

  it('a single frame: probes and decodes; two-frame methods report too_few_frames', async () => {
    const clip = await encodeFrames(
      join(dir, 'single.mp4'),
      { width: 32, height: 32, frames: 1, fps: 10 },
      scenes.static(),
    );
    const r = await evaluate(clip.path);
    expect(r.probe.frameCount).toBe(1);
    expect(r.scores.map((s) => [s.dimension, s.frames.count])).toEqual([['subject_consistency', 1]]);
    expect(r.failures).toMatchObject([{ dimension: 'temporal_flickering', code: 'too_few_frames' }]);
  });

  it('a GIF with one frame: probes and decodes one frame', async () => {
    const clip = await encodeFrames(
      join(dir, 'one.gif'),
      { width: 16, height: 16, frames: 1, fps: 10 },
      scenes.solid(0, 0, 255),
    );
    const r = await evaluate(clip.path);
    expect(r.probe).toMatchObject({ codec: 'gif', frameCount: 1, width: 16, height: 16 });
    expect(r.scores[0]!.frames.indices).toEqual([0]);
  });

  it('variable frame rate: every frame is delivered once, indices follow decode order, fps is the mean rate', async () => {
    // Frames 5.. are shifted by 0.5 s: a gap, as in a phone clip that dropped frames.
    const clip = await encodeFrames(
      join(dir, 'vfr.mp4'),
      { width: 32, height: 32, frames: 12, fps: 8, setpts: 'N/(FR*TB)+if(gte(N,5),0.5/TB,0)' },
      scenes.movingPattern(0.5),
    );
    const r = await evaluate(clip.path);
    expect(r.probe.frameCount).toBe(12);
    expect(r.probe.fps).toBeLessThan(8);
    expect(r.scores[0]!.frames.indices).toEqual([...Array(12).keys()]);
  });

  it('odd sizes (1x1, 7x5): decoded at their size', async () => {
    for (const [w, h] of [
      [1, 1],
      [7, 5],
    ] as const) {
      const clip = await encodeFrames(
        join(dir, `odd-${w}x${h}.mp4`),
        { width: w, height: h, frames: 4, fps: 10 },
        scenes.solid(200, 100, 50),
      );
      const r = await evaluate(clip.path);
      expect(r.probe).toMatchObject({ width: w, height: h, frameCount: 4 });
      expect(r.scores[0]!.frames).toMatchObject({ width: w, height: h, count: 4 });
      expect(r.failures).toEqual([]);
    }
  });

  it('rotated phone video: frames arrive in display orientation', async () => {
    const marker: FrameDrawer = (_i, f, w) => {
      f.fill(0);
      for (let x = 0; x < 8; x++) f[x * 3] = 255;
      void w;
    };
    const clip = await encodeFrames(
      join(dir, 'phone.mp4'),
      { width: 48, height: 32, frames: 3, fps: 10, rotate: 90 },
      marker,
    );
    const r = await engine.evaluate(clip.path, { dimensions: ['dynamic_degree'] });
    expect(r.probe).toMatchObject({ width: 48, height: 32, displayWidth: 32, displayHeight: 48 });
    expect([90, 270]).toContain(r.probe.rotation);
    expect(r.scores[0]!.frames).toMatchObject({ width: 32, height: 48 });
    expect(r.scores[0]!.details).toEqual({ sizeOk: true });
  });

  it('a file larger than the limit is refused before probing its content', async () => {
    const small = createEngine({
      threads: 1,
      limits: { maxFileBytes: 1000 },
      catalog: { module: new URL('./helpers/test-catalog.ts', import.meta.url), exports: testCatalog },
    });
    try {
      const clip = await encodeFrames(
        join(dir, 'big.mp4'),
        { width: 64, height: 48, frames: 10, fps: 10 },
        scenes.noise(1),
      );
      const fh = await open(clip.path, 'r');
      const { size } = await fh.stat();
      await fh.close();
      expect(size).toBeGreaterThan(1000);
      await expect(small.probe(clip.path)).rejects.toMatchObject({ code: 'file_too_large' });
    } finally {
      await small.close();
    }
  });
});
