/**
 * `generateDemoClip`: the DEMO generator. It renders moving coloured shapes (see `scene.ts`) and
 * encodes them with the FFmpeg binary shipped through npm into an H.264 MP4. It exists so that a
 * Bench run can be tried end to end without a GPU or a real text-to-video model; it is named
 * "demo" everywhere and must never be presented as a model.
 *
 * The clip is written to a temporary file next to `outPath` and renamed into place when FFmpeg
 * succeeds, so `outPath` is either absent or a complete clip.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { defaultFfmpegPath } from '../decode/binaries.js';
import { demoScene, drawDemoFrame } from './scene.js';

/** The model id under which servers list the demo generator. */
export const DEMO_MODEL_ID = 'vesta-demo';

export type DemoClipErrorCode = 'invalid_demo_input' | 'aborted' | 'demo_encode_failed';

export class DemoClipError extends Error {
  override readonly name = 'DemoClipError';
  constructor(
    readonly code: DemoClipErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface DemoClipOptions {
  /** The prompt; its words pick the shapes' colours and speeds. */
  prompt: string;
  /** Any integer; another seed gives another clip for the same prompt. */
  seed: number;
  /** Where the MP4 goes (its directory must exist). */
  outPath: string;
  /** Auxiliary prompt info: `color` and `scene` change the clip. */
  auxiliary?: Readonly<Record<string, string>> | null;
  /** Stops FFmpeg and removes the partial file. */
  signal?: AbortSignal;
  /** Default 320. Even, 16–1920. */
  width?: number;
  /** Default 192. Even, 16–1080. */
  height?: number;
  /** Default 8. 1–60. */
  fps?: number;
  /** Default 24 (3 s at 8 fps). 2–600. */
  frames?: number;
  /** Default: the shipped FFmpeg. */
  ffmpegPath?: string;
}

export interface DemoClip {
  path: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  bytes: number;
  /** Always `vesta-demo`. */
  generator: typeof DEMO_MODEL_ID;
}

function checkInt(name: string, value: number, min: number, max: number, even = false): void {
  if (!Number.isInteger(value) || value < min || value > max || (even && value % 2 !== 0)) {
    throw new DemoClipError(
      'invalid_demo_input',
      `${name} must be ${even ? 'an even' : 'a whole'} number from ${min} to ${max} (got ${value})`,
    );
  }
}

/**
 * Renders and encodes one demo clip; deterministic in (prompt, seed, auxiliary, size, fps, frames).
 * @example
 * const clip = await generateDemoClip({ prompt: 'a red car at night', seed: 7, outPath: '/tmp/car.mp4' });
 */
export async function generateDemoClip(options: DemoClipOptions): Promise<DemoClip> {
  const width = options.width ?? 320;
  const height = options.height ?? 192;
  const fps = options.fps ?? 8;
  const frames = options.frames ?? 24;
  if (typeof options.prompt !== 'string' || options.prompt.trim() === '')
    throw new DemoClipError('invalid_demo_input', 'prompt must be a non-empty string');
  if (!Number.isSafeInteger(options.seed))
    throw new DemoClipError('invalid_demo_input', `seed must be a whole number (got ${options.seed})`);
  checkInt('width', width, 16, 1920, true);
  checkInt('height', height, 16, 1080, true);
  checkInt('fps', fps, 1, 60);
  checkInt('frames', frames, 2, 600);
  if (options.signal?.aborted) throw new DemoClipError('aborted', 'demo clip generation was aborted');

  const scene = demoScene(options.prompt, options.seed, options.auxiliary ?? undefined, width, height);
  const partial = join(dirname(options.outPath), `.${basename(options.outPath)}.${randomUUID()}.partial.mp4`);
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-s',
    `${width}x${height}`,
    '-r',
    String(fps),
    '-i',
    'pipe:0',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-metadata',
    'comment=vesta-demo procedural clip (not a model output)',
    '-f',
    'mp4',
    partial,
  ];
  const child = spawn(options.ffmpegPath ?? defaultFfmpegPath(), args, {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 8_000) stderr += d;
  });
  const onAbort = (): void => {
    child.kill('SIGKILL');
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  let spawnError: Error | undefined;
  child.on('error', (err) => {
    spawnError = err;
  });
  child.stdin.on('error', () => {
    // FFmpeg exited early (or was killed); its exit status says why.
  });
  try {
    const frame = new Uint8Array(width * height * 3);
    for (let i = 0; i < frames && !options.signal?.aborted && child.exitCode === null; i++) {
      drawDemoFrame(scene, i, frame);
      if (!child.stdin.write(Buffer.from(frame)))
        // A write error (EPIPE once FFmpeg is gone) ends the wait; the exit status says why.
        await Promise.race([once(child.stdin, 'drain').catch(() => undefined), closed]);
    }
    child.stdin.end();
    const [code, signal] = await closed;
    if (options.signal?.aborted) throw new DemoClipError('aborted', 'demo clip generation was aborted');
    if (spawnError)
      throw new DemoClipError('demo_encode_failed', `cannot run ffmpeg: ${spawnError.message}`, {
        cause: spawnError,
      });
    if (code !== 0)
      throw new DemoClipError(
        'demo_encode_failed',
        `ffmpeg failed (${code ?? signal}): ${stderr.trim().slice(0, 500)}`,
      );
    await rename(partial, options.outPath);
  } catch (err) {
    await unlink(partial).catch(() => undefined);
    throw err;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  const { size } = await stat(options.outPath);
  return { path: options.outPath, width, height, fps, frames, bytes: size, generator: DEMO_MODEL_ID };
}
