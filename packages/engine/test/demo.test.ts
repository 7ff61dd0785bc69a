// The DEMO generator: real FFmpeg encodes, probed back; deterministic in prompt + seed.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoClipError, demoScene, generateDemoClip } from '../src/demo/index.js';
import { runProcess } from '../src/decode/run-process.js';
import { defaultFfprobePath } from '../src/decode/binaries.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-demo-'));
const md5 = (p: string): string => createHash('md5').update(readFileSync(p)).digest('hex');

async function probe(
  p: string,
): Promise<{ codec_name: string; width: number; height: number; nb_frames: string }> {
  const r = await runProcess(
    defaultFfprobePath(),
    ['-v', 'error', '-show_entries', 'stream=codec_name,width,height,nb_frames', '-of', 'json', p],
    { timeoutMs: 20_000 },
  );
  return (
    JSON.parse(r.stdout) as {
      streams: Array<{ codec_name: string; width: number; height: number; nb_frames: string }>;
    }
  ).streams[0]!;
}

describe('generateDemoClip', () => {
  it('writes a 320x192, 24-frame H.264 MP4, the same bytes for the same prompt and seed', async () => {
    const a = path.join(dir, 'a.mp4');
    const b = path.join(dir, 'b.mp4');
    const c = path.join(dir, 'c.mp4');
    const clip = await generateDemoClip({ prompt: 'a red car at night', seed: 1, outPath: a });
    expect(clip).toMatchObject({
      path: a,
      width: 320,
      height: 192,
      fps: 8,
      frames: 24,
      generator: 'vesta-demo',
    });
    expect(await probe(a)).toMatchObject({ codec_name: 'h264', width: 320, height: 192, nb_frames: '24' });
    await generateDemoClip({ prompt: 'a red car at night', seed: 1, outPath: b });
    await generateDemoClip({ prompt: 'a red car at night', seed: 2, outPath: c });
    expect(md5(b)).toBe(md5(a));
    expect(md5(c)).not.toBe(md5(a));
  });

  it('derives colours from the prompt words and auxiliary info', () => {
    const red = demoScene('a red car', 1, undefined, 320, 192);
    expect(red.shapes[0]!.colour).toEqual([220, 40, 40]);
    const blue = demoScene('a car', 1, { color: 'blue', scene: 'beach' }, 320, 192);
    expect(blue.shapes[0]!.colour).toEqual([40, 90, 220]);
    const otherScene = demoScene('a car', 1, { color: 'blue', scene: 'forest' }, 320, 192);
    expect(otherScene.top).not.toEqual(blue.top);
  });

  it('rejects bad input with a stable code and leaves no partial file on abort', async () => {
    await expect(
      generateDemoClip({ prompt: ' ', seed: 1, outPath: path.join(dir, 'x.mp4') }),
    ).rejects.toMatchObject({
      code: 'invalid_demo_input',
    });
    await expect(
      generateDemoClip({ prompt: 'p', seed: 1.5, outPath: path.join(dir, 'x.mp4') }),
    ).rejects.toBeInstanceOf(DemoClipError);
    await expect(
      generateDemoClip({ prompt: 'p', seed: 1, width: 321, outPath: path.join(dir, 'x.mp4') }),
    ).rejects.toMatchObject({ code: 'invalid_demo_input' });
    const controller = new AbortController();
    const pending = generateDemoClip({
      prompt: 'a long clip',
      seed: 1,
      frames: 600,
      width: 1280,
      height: 720,
      outPath: path.join(dir, 'aborted.mp4'),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    expect(readdirSync(dir).filter((f) => f.includes('aborted') || f.endsWith('.partial.mp4'))).toEqual([]);
    await expect(
      generateDemoClip({ prompt: 'p', seed: 1, outPath: path.join(dir, 'missing-dir', 'x.mp4') }),
    ).rejects.toMatchObject({ code: 'demo_encode_failed' });
  });
});
