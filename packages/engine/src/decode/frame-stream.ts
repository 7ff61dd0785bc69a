/**
 * Streams decoded frames out of ONE FFmpeg process per clip: the filter graph splits the decoded
 * stream into one branch per requested output (sampling × size × channels); each branch selects
 * its sampled frames, scales (area) and converts them, and writes raw video to its own pipe
 * (fd 3, 4, …). The iterator merges the outputs back into source order using each output's known
 * index list and yields one group per source index that any output selects.
 *
 * Frames larger than `bandAboveBytes` (4K and up in RGB) are yielded as bands of rows of about
 * `bandBytes` each, as they arrive (`OutputFrame.band`), so a native-resolution frame is never
 * held whole on this thread: a consumer that needs it whole assembles it, one that can work on
 * rows (the native model-free methods) never does.
 *
 * Memory stays bounded: a pipe is paused once it holds `highWaterFrames` complete frames (bands), unless
 * the frame needed next is still missing, in which case every pipe flows, so FFmpeg can never
 * block on a paused pipe while we wait on another one.
 * Passthrough timing (`-vsync 0`) keeps FFmpeg from duplicating or dropping frames, so frame n
 * of a select filter is source frame n.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { EngineError } from '../contract.js';
import type { Frame, FrameSampling } from '../contract.js';
import type { ProbedVideo } from './probe.js';
import { sampleIndices, selectExpression } from './sampling.js';
import { outputSize } from './size.js';

export interface FrameOutput {
  sampling: FrameSampling;
  maxSide: number | null;
  channels: 1 | 3;
}

export interface FrameStreamOptions {
  ffmpegPath: string;
  outputs: FrameOutput[];
  signal?: AbortSignal;
  /** Stop with `too_many_frames` if FFmpeg delivers more frames than this on one output (a lying header). */
  maxFrames: number;
  highWaterFrames?: number;
  /** FFmpeg decoder threads (default: FFmpeg's choice, fewer for very large frames). */
  decoderThreads?: number;
  /** Frames of more bytes than this are yielded in bands (default 8 MiB; Infinity: never). */
  bandAboveBytes?: number;
  /** Bytes per band, rounded down to whole rows (default 4 MiB). */
  bandBytes?: number;
  /**
   * Per output (by position in `outputs`): where its frame and band buffers come from (default,
   * or an empty slot: a new buffer each). Every byte of a buffer is written before it is
   * yielded, so reused buffers may hold anything.
   */
  buffers?: ReadonlyArray<FrameBufferSource | undefined>;
}

/** Supplies frame buffers (see `FrameBuffers`). */
export interface FrameBufferSource {
  take(length: number): Uint8Array;
}

/** Frames above this many bytes are delivered in bands of rows. */
export const DEFAULT_BAND_ABOVE_BYTES = 8 << 20;
export const DEFAULT_BAND_BYTES = 4 << 20;

export interface OutputFrame {
  /** Position of the output in `outputs`. */
  output: number;
  /**
   * The frame; for a band, `width`, `height` and `channels` are the whole frame's and `data`
   * holds only the band's rows (`band.rows` × width × channels bytes).
   */
  frame: Frame;
  /** How many times the sampling lists this index (VBench's uniform sampler pads short clips). */
  repeat: number;
  /** Set when this is one band of a frame: rows [y, y + rows); `last` ends the frame. */
  band?: FrameBandInfo;
}

export interface FrameBandInfo {
  y: number;
  rows: number;
  last: boolean;
}

export interface FrameGroup {
  index: number;
  timeSeconds: number;
  /**
   * The frames of this source index, one per output whose sampling selects it, each owning its
   * ArrayBuffer. A banded frame comes in several consecutive groups of the same index, one band
   * each (the other outputs' frames of that index ride with its first band).
   */
  frames: OutputFrame[];
}

interface OutputPlan {
  width: number;
  height: number;
  channels: 1 | 3;
  /** Rows per band, or the frame height when frames are not banded. */
  bandRows: number;
  /** Distinct source indices, ascending. */
  indices: number[];
  repeats: Map<number, number>;
  select: string | null;
}

export function planOutputs(
  probe: ProbedVideo,
  outputs: FrameOutput[],
  bands: { aboveBytes: number; bytes: number } = {
    aboveBytes: DEFAULT_BAND_ABOVE_BYTES,
    bytes: DEFAULT_BAND_BYTES,
  },
): OutputPlan[] {
  return outputs.map((o) => {
    const all = sampleIndices(o.sampling, probe.frameCount, probe.fps);
    const repeats = new Map<number, number>();
    for (const i of all) repeats.set(i, (repeats.get(i) ?? 0) + 1);
    const size = outputSize(probe.displayWidth, probe.displayHeight, o.maxSide);
    const rowBytes = size.width * o.channels;
    const banded = rowBytes * size.height > bands.aboveBytes;
    return {
      ...size,
      bandRows: banded ? Math.min(size.height, Math.max(1, Math.floor(bands.bytes / rowBytes))) : size.height,
      channels: o.channels,
      indices: [...repeats.keys()].sort((a, b) => a - b),
      repeats,
      select: selectExpression(o.sampling, probe.frameCount, probe.fps),
    };
  });
}

/**
 * One FFmpeg process for every output: decode once, split, then per branch select the sampled
 * frames, scale (area) and convert, each branch to its own pipe.
 */
export function buildFfmpegArgs(
  path: string,
  probe: ProbedVideo,
  plans: OutputPlan[],
  decoderThreads?: number,
): string[] {
  const n = plans.length;
  const labels = plans.map((_, i) => `[s${i}]`).join('');
  const graph: string[] = [
    n > 1 ? `[0:${probe.streamIndex}]split=${n}${labels}` : `[0:${probe.streamIndex}]null[s0]`,
  ];
  plans.forEach((p, i) => {
    const fmt = p.channels === 3 ? 'rgb24' : 'gray';
    const select = p.select ? `select='${p.select}',` : '';
    graph.push(`[s${i}]${select}scale=${p.width}:${p.height}:flags=area,format=${fmt}[o${i}]`);
  });
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error'];
  if (decoderThreads) args.push('-threads', String(decoderThreads));
  args.push('-i', path, '-filter_complex', graph.join(';'));
  plans.forEach((p, i) => {
    args.push(
      '-map',
      `[o${i}]`,
      '-vsync',
      '0',
      '-f',
      'rawvideo',
      '-pix_fmt',
      p.channels === 3 ? 'rgb24' : 'gray',
      `pipe:${3 + i}`,
    );
  });
  return args;
}

/** A queued piece of a frame: the whole frame, or a band of its rows. */
interface Piece {
  data: Uint8Array;
  y: number;
  rows: number;
  last: boolean;
}

/**
 * FFmpeg decoder threads for a clip of this size: FFmpeg's own choice (one per core, each frame
 * thread holding frames in flight) up to 1920x1080; fewer for larger frames, so that decoding a
 * 7680x4320 clip holds a bounded number of frames (one thread: about 160 MiB for H.264 at 8K).
 */
export function decoderThreadsFor(width: number, height: number): number | undefined {
  const pixels = width * height;
  if (pixels <= 1920 * 1088) return undefined;
  return Math.max(1, Math.floor((3840 * 2160 * 2) / pixels));
}

/** Accumulates a pipe's bytes into whole frames or bands of rows, each in its own ArrayBuffer. */
class FrameAssembler {
  readonly queue: Piece[] = [];
  private current: Uint8Array;
  private filled = 0;
  /** First row of the piece being filled. */
  private y = 0;
  /** Frames received in total (queued, delivered or dropped). */
  received = 0;
  ended = false;
  private readonly rowBytes: number;
  constructor(
    width: number,
    private readonly height: number,
    channels: number,
    private readonly bandRows: number,
    /** Frames beyond this count are dropped (a stream longer than its header). */
    private readonly keep: number,
    private readonly buffers: FrameBufferSource | null = null,
  ) {
    this.rowBytes = width * channels;
    this.current = this.allocate(this.pieceRows() * this.rowBytes);
  }
  private allocate(length: number): Uint8Array {
    return this.buffers ? this.buffers.take(length) : new Uint8Array(length);
  }
  private pieceRows(): number {
    return Math.min(this.bandRows, this.height - this.y);
  }
  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(this.current.length - this.filled, chunk.length - offset);
      if (this.received < this.keep) this.current.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.current.length) {
        const rows = this.pieceRows();
        const last = this.y + rows >= this.height;
        const kept = this.received < this.keep;
        if (kept) this.queue.push({ data: this.current, y: this.y, rows, last });
        this.filled = 0;
        if (last) {
          this.received++;
          this.y = 0;
        } else {
          this.y += rows;
        }
        const size = this.pieceRows() * this.rowBytes;
        // A dropped piece's buffer was never queued: it is reused.
        if (kept || this.current.length !== size) this.current = this.allocate(size);
      }
    }
  }
}

/**
 * Decodes once and yields, in source order, one group per source index that any output selects.
 * Outputs are merged by their known index lists, so a sparse sampling never holds back a dense one.
 */
export async function* streamFrames(
  path: string,
  probe: ProbedVideo,
  options: FrameStreamOptions,
): AsyncGenerator<FrameGroup> {
  if (options.outputs.length === 0) return;
  if (options.signal?.aborted) throw new EngineError('aborted', 'aborted');
  const plans = planOutputs(probe, options.outputs, {
    aboveBytes: options.bandAboveBytes ?? DEFAULT_BAND_ABOVE_BYTES,
    bytes: options.bandBytes ?? DEFAULT_BAND_BYTES,
  });
  const args = buildFfmpegArgs(
    path,
    probe,
    plans,
    options.decoderThreads ?? decoderThreadsFor(probe.width, probe.height),
  );
  const highWater = options.highWaterFrames ?? 4;
  const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'ignore', 'pipe', ...plans.map(() => 'pipe' as const)];
  const child = spawn(options.ffmpegPath, args, { stdio });
  const pipes = plans.map((_, i) => child.stdio[3 + i] as Readable);
  const assemblers = plans.map(
    (p, i) =>
      new FrameAssembler(
        p.width,
        p.height,
        p.channels,
        p.bandRows,
        p.indices.length,
        options.buffers?.[i] ?? null,
      ),
  );
  const delivered = plans.map(() => 0);

  let stderr = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let spawnError: Error | null = null;
  const state: { killedFor: EngineError | null } = { killedFor: null };
  // Read through a call: the flag is set from event handlers, which flow analysis cannot see.
  const currentFailure = (): EngineError | null => state.killedFor;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const kill = (reason: EngineError): void => {
    state.killedFor ??= reason;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    notify();
  };

  /** Outputs still owed frames: not all planned indices delivered, and the pipe can still supply them. */
  const pending = (i: number): boolean =>
    delivered[i]! < plans[i]!.indices.length && !(assemblers[i]!.ended && assemblers[i]!.queue.length === 0);
  /** The smallest source index some output still owes, and whether every output owing it has the frame. */
  const nextIndex = (): { index: number; ready: boolean } | null => {
    let index = Infinity;
    plans.forEach((p, i) => {
      if (pending(i)) index = Math.min(index, p.indices[delivered[i]!]!);
    });
    if (index === Infinity) return null;
    const ready = plans.every(
      (p, i) => !pending(i) || p.indices[delivered[i]!] !== index || assemblers[i]!.queue.length > 0,
    );
    return { index, ready };
  };
  /** Pause a pipe that is far ahead only while nothing we need next is missing; else let all flow. */
  const regulate = (): void => {
    const next = nextIndex();
    const starving = next !== null && !next.ready;
    pipes.forEach((pipe, i) => {
      const full = assemblers[i]!.queue.length >= highWater;
      if (full && !starving) pipe.pause();
      else if (pipe.isPaused()) pipe.resume();
    });
  };

  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    if (stderr.length < 16_000) stderr += d;
  });
  child.on('error', (err) => {
    spawnError = err;
    notify();
  });
  child.on('close', (code, signal) => {
    exit = { code, signal };
    notify();
  });
  pipes.forEach((pipe, i) => {
    const asm = assemblers[i]!;
    pipe.on('data', (chunk: Buffer) => {
      asm.push(chunk);
      if (asm.received > options.maxFrames)
        kill(new EngineError('too_many_frames', `the clip holds more than ${options.maxFrames} frames`));
      regulate();
      notify();
    });
    pipe.on('end', () => {
      asm.ended = true;
      notify();
    });
    pipe.on('error', () => {
      asm.ended = true;
      notify();
    });
  });
  const onAbort = (): void => kill(new EngineError('aborted', 'aborted'));
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    for (;;) {
      const failure = currentFailure();
      if (failure) throw failure;
      if (spawnError)
        throw new EngineError('decode_failed', `cannot run ffmpeg: ${(spawnError as Error).message}`);
      const next = nextIndex();
      if (next === null) {
        if (exit) break;
      } else if (next.ready) {
        const timeSeconds = probe.fps > 0 ? next.index / probe.fps : 0;
        const frames: OutputFrame[] = [];
        plans.forEach((p, i) => {
          if (!pending(i) || p.indices[delivered[i]!] !== next.index) return;
          const piece = assemblers[i]!.queue.shift()!;
          if (piece.last) delivered[i]!++;
          frames.push({
            output: i,
            repeat: p.repeats.get(next.index) ?? 1,
            frame: {
              index: next.index,
              timeSeconds,
              width: p.width,
              height: p.height,
              channels: p.channels,
              data: piece.data,
            },
            ...(p.bandRows < p.height ? { band: { y: piece.y, rows: piece.rows, last: piece.last } } : {}),
          });
        });
        regulate();
        yield { index: next.index, timeSeconds, frames };
        continue;
      } else if (exit) {
        // FFmpeg is done but an output owes a frame it never wrote: treated as a short stream.
        break;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    const failure = currentFailure();
    if (failure) throw failure;
    const ended = exit as { code: number | null; signal: NodeJS.Signals | null } | null;
    if (ended && ended.code !== 0) {
      const detail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      throw new EngineError('decode_failed', `ffmpeg failed (${ended.code ?? ended.signal}): ${detail}`);
    }
    // Fewer frames than the header promised: a cut-off upload. A small shortfall (a container
    // whose count is a frame or two off) is tolerated; see docs/decoding.md.
    plans.forEach((p, i) => {
      const expected = p.indices.length;
      const got = delivered[i]!;
      if (got < expected && (got === 0 || expected - got > Math.max(2, 0.05 * expected))) {
        const detail = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
        throw new EngineError(
          'truncated',
          `decoded ${got} of ${expected} sampled frames${detail ? `: ${detail}` : ''}`,
        );
      }
    });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
