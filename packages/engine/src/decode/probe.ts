/**
 * Probing: what a clip is (container, codec, size, rotation, fps, exact frame count, duration)
 * without decoding it. Uses ffprobe; when the container does not state the frame count, packets
 * are counted (a demux pass, no decoding). Limits are checked here, before any frame is decoded.
 */
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { EngineError } from '../contract.js';
import type { EngineLimits, VideoProbe } from '../contract.js';
import {
  checkDecodedWork,
  checkDurationLimit,
  checkFileSize,
  checkFrameLimit,
  checkSizeLimits,
} from './limits.js';
import { readGifTiming } from './gif-timing.js';
import type { GifTiming } from './gif-timing.js';
import { runProcess } from './run-process.js';

export interface ProbeOptions {
  ffprobePath: string;
  limits: EngineLimits;
  /** Codecs the decoder can decode; a clip in another codec fails with `unsupported_codec`. */
  decodableCodecs?: ReadonlySet<string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A probe plus the stream index frames are decoded from. */
export interface ProbedVideo extends VideoProbe {
  streamIndex: number;
}

interface FfprobeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  duration?: string;
  bit_rate?: string;
  nb_frames?: string;
  nb_read_packets?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: Array<{ side_data_type?: string; rotation?: number }>;
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string; bit_rate?: string; size?: string };
}

function parseRational(s: string | undefined): number {
  if (!s) return 0;
  const [n, d] = s.split('/').map(Number);
  if (n === undefined || !Number.isFinite(n)) return 0;
  if (d === undefined) return n;
  return d > 0 && Number.isFinite(d) ? n / d : 0;
}

function num(s: string | undefined): number | null {
  if (s === undefined) return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}

/**
 * Frame rate as OpenCV's `CAP_PROP_FPS` reports it (what VBench's fps-based samplers read):
 * avg_frame_rate, falling back to r_frame_rate. For GIFs and variable-frame-rate clips this is the
 * true mean rate; r_frame_rate there is a timebase guess (e.g. 277/12 for a 7.7 fps GIF).
 */
function guessFrameRate(s: FfprobeStream): number {
  const avg = parseRational(s.avg_frame_rate);
  return avg > 0 ? avg : parseRational(s.r_frame_rate);
}

/** The rate FFmpeg gives a stream that states none (its raw demuxers' default), assumed likewise. */
export const ASSUMED_STREAM_FPS = 25;

/** A clip's rate and duration, and whether the rate is an assumption. */
export interface ClipTiming {
  fps: number;
  durationSeconds: number;
  fpsAssumed: boolean;
}

/**
 * Timing from what the container states: its rate (duration from the container, else frames /
 * rate); with no usable rate, frames / duration; with neither, 25 fps, assumed.
 */
export function statedTiming(fps: number, durationSeconds: number, frameCount: number): ClipTiming {
  if (Number.isFinite(fps) && fps > 0)
    return {
      fps,
      durationSeconds: durationSeconds > 0 ? durationSeconds : frameCount / fps,
      fpsAssumed: false,
    };
  if (durationSeconds > 0 && frameCount > 0)
    return { fps: frameCount / durationSeconds, durationSeconds, fpsAssumed: false };
  return { fps: ASSUMED_STREAM_FPS, durationSeconds: frameCount / ASSUMED_STREAM_FPS, fpsAssumed: true };
}

/**
 * A GIF's timing as browsers play it, when some frame's delay is missing or under 2 cs (FFmpeg
 * then reads 1 cs, or no timing at all); null when every delay is usable, so the container's rate
 * stands (what OpenCV, and so VBench, reads for such a GIF).
 */
export function gifClipTiming(t: GifTiming, frameCount: number): ClipTiming | null {
  if (t.frames === 0 || t.assumedFrames === 0) return null;
  const fps = (100 * t.frames) / t.totalCs;
  return {
    fps,
    durationSeconds: t.frames === frameCount ? t.totalCs / 100 : frameCount / fps,
    fpsAssumed: true,
  };
}

/** Display rotation, clockwise degrees in {0, 90, 180, 270}. */
function displayRotation(s: FfprobeStream): number {
  let cw = 0;
  const matrix = s.side_data_list?.find((d) => typeof d.rotation === 'number');
  // The display matrix angle is counterclockwise; the legacy `rotate` tag is clockwise.
  if (matrix?.rotation !== undefined) cw = -matrix.rotation;
  else if (s.tags?.rotate !== undefined) cw = Number(s.tags.rotate) || 0;
  const quarter = Math.round(cw / 90);
  return (((quarter % 4) + 4) % 4) * 90;
}

/** True when the first bytes carry a known video container's signature (so a failure means "cut off"). */
async function hasContainerSignature(path: string): Promise<boolean> {
  let fh: FileHandle | null = null;
  try {
    fh = await open(path, 'r');
    const head = Buffer.alloc(12);
    const { bytesRead } = await fh.read(head, 0, 12, 0);
    const box = head.toString('latin1', 4, 8);
    if (bytesRead >= 8 && ['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].includes(box)) return true; // MP4/MOV
    if (head.readUInt32BE(0) === 0x1a45dfa3) return true; // Matroska/WebM (EBML)
    const magic = head.toString('latin1', 0, 4);
    return (
      magic === 'RIFF' ||
      magic === 'GIF8' ||
      magic === 'DKIF' ||
      head.toString('latin1', 0, 9) === 'YUV4MPEG2'
    );
  } catch {
    return false;
  } finally {
    await fh?.close();
  }
}

function classifyProbeFailure(stderr: string, signature: boolean): EngineError {
  const text = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
  // FFmpeg refuses frame sizes whose buffers would overflow before we ever see the header values.
  const size = /Picture size (\d+)x(\d+) is invalid/.exec(stderr);
  if (size && (Number(size[1]) > 0 || Number(size[2]) > 0)) {
    return new EngineError(
      'resolution_too_large',
      `the header declares ${size[1]}x${size[2]}, larger than any decodable frame`,
    );
  }
  if (
    signature &&
    /moov atom not found|End of file|Truncat|partial file|Invalid NAL|invalid data/i.test(stderr)
  ) {
    return new EngineError('truncated', `the file is truncated or incomplete: ${text}`);
  }
  return new EngineError('not_a_video', `not a readable video file: ${text || 'ffprobe could not parse it'}`);
}

export async function probeVideo(path: string, options: ProbeOptions): Promise<ProbedVideo> {
  const { limits, signal } = options;
  const timeoutMs = options.timeoutMs ?? 60_000;
  let sizeBytes: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new EngineError('not_a_video', `${path} is not a regular file`);
    sizeBytes = st.size;
  } catch (err) {
    if (err instanceof EngineError) throw err;
    throw new EngineError('not_a_video', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  checkFileSize(sizeBytes, limits);

  const result = await runProcess(
    options.ffprobePath,
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
    { signal, timeoutMs },
  );
  if (result.code !== 0) throw classifyProbeFailure(result.stderr, await hasContainerSignature(path));
  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(result.stdout) as FfprobeOutput;
  } catch (err) {
    throw new EngineError('not_a_video', 'ffprobe returned unreadable output', { cause: err });
  }
  const streams = parsed.streams ?? [];
  if (!parsed.format || streams.length === 0)
    throw new EngineError('not_a_video', 'no streams found: not a video file');
  // Cover art in audio files is a "video" stream with the attached_pic disposition: not a video.
  const stream = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  if (!stream || stream.index === undefined) {
    throw new EngineError('no_video_stream', 'the file has no video stream');
  }
  const codec = stream.codec_name ?? 'unknown';
  if (options.decodableCodecs && !options.decodableCodecs.has(codec)) {
    throw new EngineError('unsupported_codec', `codec ${codec} cannot be decoded by this build`);
  }
  const width = stream.width ?? 0;
  const height = stream.height ?? 0;
  if (!(width > 0 && height > 0)) throw new EngineError('not_a_video', 'the video stream has no frame size');
  checkSizeLimits(width, height, limits);

  const rotation = displayRotation(stream);
  const swap = rotation === 90 || rotation === 270;
  const statedDuration = num(stream.duration) ?? num(parsed.format.duration) ?? 0;
  checkDurationLimit({ durationSeconds: statedDuration }, limits);

  let frameCount = num(stream.nb_frames) ?? 0;
  let frameCountExact = frameCount > 0;
  if (!frameCountExact) {
    frameCount = await countPackets(path, stream.index, options.ffprobePath, signal, timeoutMs);
    frameCountExact = true;
  }
  const container = parsed.format.format_name ?? 'unknown';
  const { fps, durationSeconds, fpsAssumed } =
    (container === 'gif' ? gifClipTiming(await readGifTiming(path), frameCount) : null) ??
    statedTiming(guessFrameRate(stream), statedDuration, frameCount);
  checkDurationLimit({ durationSeconds }, limits);
  checkFrameLimit(frameCount, limits);
  checkDecodedWork(width, height, frameCount, limits);
  if (frameCount === 0) throw new EngineError('too_few_frames', 'the video stream holds no frames');

  return {
    container,
    codec,
    width,
    height,
    rotation,
    displayWidth: swap ? height : width,
    displayHeight: swap ? width : height,
    fps,
    fpsAssumed,
    frameCount,
    frameCountExact,
    durationSeconds,
    bitRate: num(stream.bit_rate) ?? num(parsed.format.bit_rate),
    sizeBytes,
    streamIndex: stream.index,
  };
}

async function countPackets(
  path: string,
  streamIndex: number,
  ffprobePath: string,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<number> {
  const result = await runProcess(
    ffprobePath,
    [
      '-v',
      'error',
      '-select_streams',
      String(streamIndex),
      '-count_packets',
      '-show_entries',
      'stream=nb_read_packets',
      '-print_format',
      'json',
      path,
    ],
    { signal, timeoutMs },
  );
  if (result.code !== 0) throw classifyProbeFailure(result.stderr, await hasContainerSignature(path));
  const parsed = JSON.parse(result.stdout) as FfprobeOutput;
  return num(parsed.streams?.[0]?.nb_read_packets) ?? 0;
}

/** The public probe (without the internal stream index). */
export function toVideoProbe(p: ProbedVideo): VideoProbe {
  const { streamIndex: _streamIndex, ...probe } = p;
  return probe;
}
