/**
 * Probing: what a clip is (container, codec, size, rotation, fps, exact frame count, duration)
 * without decoding it. Uses ffprobe; when the container does not state the frame count, packets
 * are counted (a demux pass, no decoding). Limits are checked here, before any frame is decoded.
 */
import { stat } from 'node:fs/promises';
import { EngineError } from '../contract.js';
import type { EngineLimits, VideoProbe } from '../contract.js';
import { checkDurationLimit, checkFileSize, checkFrameLimit, checkSizeLimits } from './limits.js';
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
 * Frame rate as OpenCV reports it (what VBench's samplers read): FFmpeg's `av_guess_frame_rate`,
 * i.e. r_frame_rate unless it is missing or implausibly high while avg_frame_rate is sane.
 */
function guessFrameRate(s: FfprobeStream): number {
  const r = parseRational(s.r_frame_rate);
  const avg = parseRational(s.avg_frame_rate);
  if (r > 0 && !(avg > 0 && avg < 70 && r > 210)) return r;
  return avg;
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

function classifyProbeFailure(stderr: string): EngineError {
  const text = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
  if (/moov atom not found|End of file|Truncat|partial file|Invalid NAL/i.test(stderr)) {
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
  if (result.code !== 0) throw classifyProbeFailure(result.stderr);
  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(result.stdout) as FfprobeOutput;
  } catch (err) {
    throw new EngineError('not_a_video', 'ffprobe returned unreadable output', { cause: err });
  }
  const streams = parsed.streams ?? [];
  if (!parsed.format || streams.length === 0) throw new EngineError('not_a_video', 'no streams found: not a video file');
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
  const fps = guessFrameRate(stream);
  let durationSeconds = num(stream.duration) ?? num(parsed.format.duration) ?? 0;
  checkDurationLimit({ durationSeconds }, limits);

  let frameCount = num(stream.nb_frames) ?? 0;
  let frameCountExact = frameCount > 0;
  if (!frameCountExact) {
    frameCount = await countPackets(path, stream.index, options.ffprobePath, signal, timeoutMs);
    frameCountExact = true;
  }
  if (durationSeconds <= 0 && fps > 0) durationSeconds = frameCount / fps;
  checkDurationLimit({ durationSeconds }, limits);
  checkFrameLimit(frameCount, limits);
  if (frameCount === 0) throw new EngineError('too_few_frames', 'the video stream holds no frames');

  return {
    container: parsed.format.format_name ?? 'unknown',
    codec,
    width,
    height,
    rotation,
    displayWidth: swap ? height : width,
    displayHeight: swap ? width : height,
    fps,
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
    ['-v', 'error', '-select_streams', String(streamIndex), '-count_packets', '-show_entries', 'stream=nb_read_packets', '-print_format', 'json', path],
    { signal, timeoutMs },
  );
  if (result.code !== 0) throw classifyProbeFailure(result.stderr);
  const parsed = JSON.parse(result.stdout) as FfprobeOutput;
  return num(parsed.streams?.[0]?.nb_read_packets) ?? 0;
}

/** The public probe (without the internal stream index). */
export function toVideoProbe(p: ProbedVideo): VideoProbe {
  const { streamIndex: _streamIndex, ...probe } = p;
  return probe;
}
