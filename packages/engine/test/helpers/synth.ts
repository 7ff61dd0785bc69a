/**
 * Synthetic test clips, encoded with the FFmpeg binary shipped through npm.
 *
 * Two ways to make a clip:
 * - `encodeFrames(path, options, draw)`: `draw(index, frame)` fills one RGB24 frame (row-major,
 *   `width*height*3` bytes) per call; frames are streamed into ffmpeg's stdin, so a long clip is
 *   never held in memory.
 * - `encodeLavfi(path, source, options)`: an FFmpeg lavfi source graph (e.g. `testsrc2=size=320x240:rate=8`).
 *
 * `scenes` holds ready-made frame generators with a graded `severity` in [0, 1] (0 = clean):
 * static, moving pattern, flicker, noise, blur, jitter, dropped frames, freeze. Heavy compression
 * is an encode option (`crf`), not a scene: combine any scene with `crf: 51`.
 * Every generator is deterministic (a seeded PRNG), so a test's numbers repeat run to run.
 *
 * @example
 *   const clip = await encodeFrames(join(dir, 'flicker.mp4'),
 *     { width: 128, height: 96, frames: 24, fps: 8 }, scenes.flicker(0.5));
 *   // clip.path, clip.frames
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { unlink } from 'node:fs/promises';

const require = createRequire(import.meta.url);

/** Path of the ffmpeg binary shipped through npm. */
export function ffmpegPath(): string {
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

export type SynthCodec = 'h264' | 'hevc' | 'vp9' | 'mpeg4' | 'av1' | 'gif' | 'ffv1' | 'rawvideo';

export interface SynthOptions {
  width: number;
  height: number;
  frames: number;
  fps: number;
  /** Default: from the file extension (.mp4/.mov/.mkv → h264, .webm → vp9, .avi → mpeg4, .gif → gif, .y4m → rawvideo). */
  codec?: SynthCodec;
  /** Quality for h264/hevc/vp9/av1 (0 = best; 51 for h264/hevc is heavy compression). Default 18. */
  crf?: number;
  /** Output pixel format; default yuv420p (yuv444p is chosen automatically for odd sizes). */
  pixelFormat?: string;
  /**
   * The `rotate` tag value written (MP4/MOV: stored as a display matrix) by a stream copy after
   * encoding. Note the FFmpeg build here reads `rotate=90` back as a 270° clockwise display
   * rotation (the matrix is stored counterclockwise); probe the result rather than assume.
   */
  rotate?: 0 | 90 | 180 | 270;
  /** FFmpeg `setpts` expression to make variable frame rate output, e.g. `N/(FR*TB)+if(gte(N,5),0.5/TB,0)`. */
  setpts?: string;
  /** Extra output arguments, placed before the output path. */
  extraArgs?: string[];
}

export interface SynthClip {
  path: string;
  width: number;
  height: number;
  frames: number;
  fps: number;
}

/** Fills `frame` (RGB24, `width*height*3` bytes, pre-zeroed on first use, reused between calls). */
export type FrameDrawer = (index: number, frame: Uint8Array, width: number, height: number) => void;

function codecFor(path: string): SynthCodec {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  switch (ext) {
    case 'webm':
      return 'vp9';
    case 'avi':
      return 'mpeg4';
    case 'gif':
      return 'gif';
    case 'y4m':
      return 'rawvideo';
    default:
      return 'h264';
  }
}

function outputArgs(path: string, o: SynthOptions): string[] {
  const codec = o.codec ?? codecFor(path);
  const odd = o.width % 2 === 1 || o.height % 2 === 1;
  const pix = o.pixelFormat ?? (odd ? 'yuv444p' : 'yuv420p');
  const crf = String(o.crf ?? 18);
  const args: string[] = [];
  const filters: string[] = [];
  if (o.setpts) filters.push(`setpts='${o.setpts}'`);
  switch (codec) {
    case 'h264':
      args.push('-c:v', 'libx264', '-preset', 'veryfast', '-crf', crf, '-pix_fmt', pix);
      break;
    case 'hevc':
      args.push(
        '-c:v',
        'libx265',
        '-preset',
        'veryfast',
        '-crf',
        crf,
        '-pix_fmt',
        pix,
        '-x265-params',
        'log-level=error',
      );
      break;
    case 'vp9':
      args.push(
        '-c:v',
        'libvpx-vp9',
        '-crf',
        crf,
        '-b:v',
        '0',
        '-deadline',
        'realtime',
        '-cpu-used',
        '8',
        '-pix_fmt',
        pix,
      );
      break;
    case 'av1':
      args.push(
        '-c:v',
        'libaom-av1',
        '-strict',
        'experimental',
        '-crf',
        crf,
        '-b:v',
        '0',
        '-cpu-used',
        '8',
        '-pix_fmt',
        pix,
      );
      break;
    case 'mpeg4':
      // mpeg4 takes a quantiser (2 best … 31 worst); `crf` is used as that quantiser.
      args.push(
        '-c:v',
        'mpeg4',
        '-q:v',
        String(Math.max(2, Math.min(31, o.crf ?? 4))),
        '-pix_fmt',
        'yuv420p',
      );
      break;
    case 'gif':
      // A per-clip palette keeps GIF colours close to the source.
      filters.push('split[a][b];[a]palettegen=stats_mode=full[p];[b][p]paletteuse=dither=none');
      break;
    case 'ffv1':
      args.push('-c:v', 'ffv1', '-pix_fmt', pix);
      break;
    case 'rawvideo':
      args.push('-pix_fmt', pix);
      break;
  }
  if (filters.length > 0) args.unshift('-filter_complex', filters.join(','));
  if (o.setpts) args.push('-vsync', '0');
  args.push(...(o.extraArgs ?? []), path);
  return args;
}

async function runFfmpeg(
  args: string[],
  feed?: (stdin: NodeJS.WritableStream) => Promise<void>,
): Promise<void> {
  const child = spawn(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-y', ...args], {
    stdio: [feed ? 'pipe' : 'ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    if (stderr.length < 20_000) stderr += d;
  });
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  if (feed && child.stdin) {
    child.stdin.on('error', () => {
      /* ffmpeg exited early; the exit code below reports why */
    });
    await feed(child.stdin);
  }
  const [code, signal] = await exited;
  if (code !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed (${code ?? signal}): ${stderr.trim()}`);
}

/** Encodes frames drawn by `draw` into `path`. */
export async function encodeFrames(
  path: string,
  options: SynthOptions,
  draw: FrameDrawer,
): Promise<SynthClip> {
  const { width, height, frames, fps } = options;
  const input = [
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
  ];
  const target = options.rotate ? rotatedTemp(path) : path;
  await runFfmpeg([...input, ...outputArgs(target, options)], async (stdin) => {
    for (let i = 0; i < frames; i++) {
      const frame = new Uint8Array(width * height * 3);
      draw(i, frame, width, height);
      if (!stdin.write(frame)) await once(stdin, 'drain');
    }
    stdin.end();
  });
  if (options.rotate) await applyRotation(target, path, options.rotate);
  return { path, width, height, frames, fps };
}

/** Encodes an FFmpeg lavfi source (e.g. `testsrc2=size=320x240:rate=8`) into `path`, cut to `options.frames`. */
export async function encodeLavfi(path: string, source: string, options: SynthOptions): Promise<SynthClip> {
  const target = options.rotate ? rotatedTemp(path) : path;
  await runFfmpeg([
    '-f',
    'lavfi',
    '-i',
    source,
    '-frames:v',
    String(options.frames),
    ...outputArgs(target, options),
  ]);
  if (options.rotate) await applyRotation(target, path, options.rotate);
  return { path, width: options.width, height: options.height, frames: options.frames, fps: options.fps };
}

function rotatedTemp(path: string): string {
  const dot = path.lastIndexOf('.');
  return `${path.slice(0, dot)}.unrotated${path.slice(dot)}`;
}

/**
 * This FFmpeg build drops the `rotate` tag when it encodes, so rotation is written by a stream
 * copy. The MP4 muxer stores it as a display matrix, which both ffprobe and ffmpeg read back as a
 * display rotation of `360 - rotate` degrees clockwise (see docs/decoding.md).
 */
async function applyRotation(from: string, to: string, rotate: number): Promise<void> {
  try {
    await runFfmpeg(['-i', from, '-c', 'copy', '-metadata:s:v:0', `rotate=${rotate}`, to]);
  } finally {
    await unlink(from).catch(() => undefined);
  }
}

/** Runs ffmpeg with arbitrary arguments (for crafted inputs such as audio-only files). */
export async function ffmpeg(args: string[]): Promise<void> {
  await runFfmpeg(args);
}

/** mulberry32: a small seeded PRNG, so synthetic clips are identical on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function clamp255(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/** A smooth, textured base image (gradients + blobs) sampled at a sub-pixel offset (dx, dy). */
function texture(
  x: number,
  y: number,
  w: number,
  h: number,
  dx: number,
  dy: number,
): [number, number, number] {
  const u = (x + dx) / w;
  const v = (y + dy) / h;
  const r = 128 + 90 * Math.sin(2 * Math.PI * (u * 2 + v * 0.5));
  const g = 128 + 90 * Math.sin(2 * Math.PI * (v * 2.5 - u * 0.7) + 1);
  const b = 128 + 70 * Math.cos(2 * Math.PI * (u * 1.3 + v * 1.9) + 2);
  return [r, g, b];
}

function paint(frame: Uint8Array, w: number, h: number, dx: number, dy: number, gain = 1, offset = 0): void {
  let p = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [r, g, b] = texture(x, y, w, h, dx, dy);
      frame[p++] = clamp255(r * gain + offset);
      frame[p++] = clamp255(g * gain + offset);
      frame[p++] = clamp255(b * gain + offset);
    }
  }
}

/**
 * Frame generators with a graded severity in [0, 1]. 0 is the clean version of each effect
 * (a static or smoothly moving textured image); 1 is the strongest.
 */
export const scenes = {
  /** The same textured image in every frame. */
  static(): FrameDrawer {
    return (_i, f, w, h) => paint(f, w, h, 0, 0);
  },
  /** The texture pans right at `severity * 8` pixels per frame (0 = static). */
  movingPattern(severity: number): FrameDrawer {
    return (i, f, w, h) => paint(f, w, h, i * severity * 8, i * severity * 2);
  },
  /** Static texture whose brightness alternates by ±`severity * 60` levels every frame. */
  flicker(severity: number): FrameDrawer {
    return (i, f, w, h) => paint(f, w, h, 0, 0, 1, (i % 2 === 0 ? 1 : -1) * severity * 60);
  },
  /** Static texture plus per-frame independent uniform noise of amplitude `severity * 80`. */
  noise(severity: number, seed = 1): FrameDrawer {
    const rnd = seededRandom(seed);
    return (_i, f, w, h) => {
      paint(f, w, h, 0, 0);
      const a = severity * 80;
      for (let p = 0; p < f.length; p++) f[p] = clamp255(f[p]! + (rnd() * 2 - 1) * a);
    };
  },
  /** Static texture with small high-contrast details, box-blurred with radius `round(severity * 6)`. */
  blur(severity: number): FrameDrawer {
    const radius = Math.round(severity * 6);
    return (_i, f, w, h) => {
      // A checkerboard of 2-pixel cells over the texture: lots of detail for blur to remove.
      paint(f, w, h, 0, 0);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const on = ((x >> 1) + (y >> 1)) % 2 === 0;
          const p = (y * w + x) * 3;
          for (let c = 0; c < 3; c++) f[p + c] = on ? clamp255(f[p + c]! + 60) : clamp255(f[p + c]! - 60);
        }
      if (radius > 0) boxBlur(f, w, h, radius);
    };
  },
  /** A steady pan (2 px/frame) whose position jumps by a random ±`severity * 12` px each frame. */
  jitter(severity: number, seed = 2): FrameDrawer {
    const rnd = seededRandom(seed);
    return (i, f, w, h) =>
      paint(f, w, h, i * 2 + (rnd() * 2 - 1) * severity * 12, (rnd() * 2 - 1) * severity * 12);
  },
  /**
   * A steady pan (3 px/frame) with frames dropped: with severity s, every `max(2, round(6 - 4s))`-th
   * step skips `1 + round(3s)` positions, so motion stutters (0 = no drops).
   */
  droppedFrames(severity: number): FrameDrawer {
    const period = Math.max(2, Math.round(6 - 4 * severity));
    const skip = severity > 0 ? 1 + Math.round(3 * severity) : 0;
    return (i, f, w, h) => {
      const pos = i + Math.floor(i / period) * skip;
      paint(f, w, h, pos * 3, 0);
    };
  },
  /** A steady pan (3 px/frame) that freezes for `round(severity * 60)`% of the clip in the middle. */
  freeze(severity: number, frames: number): FrameDrawer {
    const len = Math.round(severity * 0.6 * frames);
    const start = Math.floor((frames - len) / 2);
    return (i, f, w, h) => {
      const t = i < start ? i : i < start + len ? start : i - len;
      paint(f, w, h, t * 3, 0);
    };
  },
  /** A solid colour (constant frames). */
  solid(r: number, g: number, b: number): FrameDrawer {
    return (_i, f) => {
      for (let p = 0; p < f.length; p += 3) {
        f[p] = r;
        f[p + 1] = g;
        f[p + 2] = b;
      }
    };
  },
};

/** In-place separable box blur of an RGB24 frame (edges clamp). */
function boxBlur(f: Uint8Array, w: number, h: number, r: number): void {
  const tmp = new Float32Array(f.length);
  const n = 2 * r + 1;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let k = -r; k <= r; k++) s += f[(y * w + Math.min(w - 1, Math.max(0, x + k))) * 3 + c]!;
        tmp[(y * w + x) * 3 + c] = s / n;
      }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let k = -r; k <= r; k++) s += tmp[(Math.min(h - 1, Math.max(0, y + k)) * w + x) * 3 + c]!;
        f[(y * w + x) * 3 + c] = Math.round(s / n);
      }
}
