/**
 * Streams decoded frames out of ONE FFmpeg process per sampling: the filter graph selects the
 * sampled frames, splits them, and scales/converts each branch to one requested output
 * (size × channels), each written as raw video to its own pipe (fd 3, 4, …). The iterator yields
 * one group per sampled frame with a frame for every output, in source order.
 *
 * Memory stays bounded: an output's pipe is paused once it holds `highWaterFrames` complete
 * frames while every output has at least one (then the consumer is the bottleneck); a pipe is
 * never paused while another output is still waiting for its frame, so FFmpeg cannot deadlock.
 * Passthrough timing (`-vsync 0`) keeps FFmpeg from duplicating or dropping frames, so frame n
 * of the select filter is source frame n.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { EngineError } from '../contract.js';
import type { Frame, FrameSampling } from '../contract.js';
import type { ProbedVideo } from './probe.js';
import { sampleIndices, selectExpression } from './sampling.js';
import { outputSize } from './size.js';

export interface FrameOutput {
  maxSide: number | null;
  channels: 1 | 3;
}

export interface FrameStreamOptions {
  ffmpegPath: string;
  sampling: FrameSampling;
  outputs: FrameOutput[];
  signal?: AbortSignal;
  /** Stop with `too_many_frames` if FFmpeg delivers more frames than this (a lying header). */
  maxFrames: number;
  highWaterFrames?: number;
  /** FFmpeg decoder threads (default: FFmpeg's choice). */
  decoderThreads?: number;
}

export interface FrameGroup {
  index: number;
  timeSeconds: number;
  /** One frame per requested output, in `outputs` order. Each owns its ArrayBuffer (transferable). */
  frames: Frame[];
}

/** The plan for one decode: output sizes and the indices the sampling should deliver. */
export interface FramePlan {
  sizes: Array<{ width: number; height: number; channels: 1 | 3 }>;
  /** Distinct source indices in delivery order (uniform padding repeats are not included). */
  indices: number[];
}

export function planFrames(probe: ProbedVideo, sampling: FrameSampling, outputs: FrameOutput[]): FramePlan {
  const sizes = outputs.map((o) => ({
    ...outputSize(probe.displayWidth, probe.displayHeight, o.maxSide),
    channels: o.channels,
  }));
  const indices = [...new Set(sampleIndices(sampling, probe.frameCount, probe.fps))];
  return { sizes, indices };
}

export function buildFfmpegArgs(
  path: string,
  probe: ProbedVideo,
  options: FrameStreamOptions,
  plan: FramePlan,
): string[] {
  const select = selectExpression(options.sampling, probe.frameCount, probe.fps);
  const n = plan.sizes.length;
  const head = [`[0:${probe.streamIndex}]`, select ? `select='${select}',` : 'null,'].join('');
  const labels = plan.sizes.map((_, i) => `[s${i}]`);
  const graph: string[] = [n > 1 ? `${head}split=${n}${labels.join('')}` : `${head}null[s0]`];
  plan.sizes.forEach((s, i) => {
    const fmt = s.channels === 3 ? 'rgb24' : 'gray';
    graph.push(`[s${i}]scale=${s.width}:${s.height}:flags=area,format=${fmt}[o${i}]`);
  });
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error'];
  if (options.decoderThreads) args.push('-threads', String(options.decoderThreads));
  args.push('-i', path, '-filter_complex', graph.join(';'));
  plan.sizes.forEach((s, i) => {
    args.push(
      '-map',
      `[o${i}]`,
      '-vsync',
      '0',
      '-f',
      'rawvideo',
      '-pix_fmt',
      s.channels === 3 ? 'rgb24' : 'gray',
      `pipe:${3 + i}`,
    );
  });
  return args;
}

/** Accumulates a pipe's bytes into whole frames, each in its own ArrayBuffer. */
class FrameAssembler {
  readonly queue: Uint8Array[] = [];
  private current: Uint8Array;
  private filled = 0;
  ended = false;
  constructor(readonly frameBytes: number) {
    this.current = new Uint8Array(frameBytes);
  }
  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(this.frameBytes - this.filled, chunk.length - offset);
      this.current.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.frameBytes) {
        this.queue.push(this.current);
        this.current = new Uint8Array(this.frameBytes);
        this.filled = 0;
      }
    }
  }
  get partial(): boolean {
    return this.filled > 0;
  }
}

export async function* streamFrames(
  path: string,
  probe: ProbedVideo,
  options: FrameStreamOptions,
): AsyncGenerator<FrameGroup> {
  if (options.outputs.length === 0) return;
  if (options.signal?.aborted) throw new EngineError('aborted', 'aborted');
  const plan = planFrames(probe, options.sampling, options.outputs);
  const args = buildFfmpegArgs(path, probe, options, plan);
  const highWater = options.highWaterFrames ?? 4;
  const stdio: Array<'ignore' | 'pipe'> = [
    'ignore',
    'ignore',
    'pipe',
    ...plan.sizes.map(() => 'pipe' as const),
  ];
  const child = spawn(options.ffmpegPath, args, { stdio });
  const pipes = plan.sizes.map((_, i) => child.stdio[3 + i] as Readable);
  const assemblers = plan.sizes.map((s) => new FrameAssembler(s.width * s.height * s.channels));

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
      if (asm.queue.length >= highWater && assemblers.every((a) => a.queue.length > 0)) pipe.pause();
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

  let delivered = 0;
  try {
    for (;;) {
      if (state.killedFor) throw state.killedFor;
      if (spawnError)
        throw new EngineError('decode_failed', `cannot run ffmpeg: ${(spawnError as Error).message}`);
      if (assemblers.every((a) => a.queue.length > 0)) {
        const datas = assemblers.map((a) => a.queue.shift()!);
        // Resume paused pipes now that the consumer has taken a group.
        const starving = assemblers.some((a) => a.queue.length === 0);
        pipes.forEach((p, i) => {
          if (p.isPaused() && (starving || assemblers[i]!.queue.length < highWater)) p.resume();
        });
        if (delivered >= options.maxFrames) {
          kill(new EngineError('too_many_frames', `the clip holds more than ${options.maxFrames} frames`));
          continue;
        }
        // Past the probed count (a stream longer than its header says), indices continue in order.
        const index =
          plan.indices[delivered] ??
          (plan.indices.length > 0
            ? plan.indices[plan.indices.length - 1]! + 1 + delivered - plan.indices.length
            : delivered);
        delivered++;
        yield {
          index,
          timeSeconds: probe.fps > 0 ? index / probe.fps : 0,
          frames: datas.map((data, i) => {
            const s = plan.sizes[i]!;
            return {
              index,
              timeSeconds: probe.fps > 0 ? index / probe.fps : 0,
              width: s.width,
              height: s.height,
              channels: s.channels,
              data,
            };
          }),
        };
        continue;
      }
      if (exit && assemblers.every((a) => a.ended || a.queue.length === 0)) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    const ended = exit as { code: number | null; signal: NodeJS.Signals | null } | null;
    const failure = currentFailure();
    if (failure) throw failure;
    if (ended && ended.code !== 0) {
      const detail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      throw new EngineError('decode_failed', `ffmpeg failed (${ended.code ?? ended.signal}): ${detail}`);
    }
    // Fewer frames than the header promised: a cut-off upload. A small shortfall (a container
    // whose count is a frame or two off) is tolerated; see docs/decoding.md.
    const expected = plan.indices.length;
    if (delivered < expected && (delivered === 0 || expected - delivered > Math.max(2, 0.05 * expected))) {
      const detail = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
      throw new EngineError(
        'truncated',
        `decoded ${delivered} of ${expected} sampled frames${detail ? `: ${detail}` : ''}`,
      );
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
