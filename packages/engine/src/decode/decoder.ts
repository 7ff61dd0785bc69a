/** The decoder used by the engine: shipped FFmpeg binaries, limits, and the decodable-codec list. */
import type { EngineLimits } from '../contract.js';
import { listDecodableCodecs } from './codecs.js';
import { streamFrames } from './frame-stream.js';
import type { FrameBufferSource, FrameGroup, FrameOutput } from './frame-stream.js';
import { probeVideo } from './probe.js';
import type { ProbedVideo } from './probe.js';

export interface DecoderOptions {
  ffmpegPath: string;
  ffprobePath: string;
  limits: EngineLimits;
  /** Band settings of `streamFrames` (default: frames above 8 MiB in bands of 4 MiB). */
  bands?: { aboveBytes: number; bytes: number };
}

export interface Decoder {
  readonly limits: EngineLimits;
  probe(path: string, signal?: AbortSignal): Promise<ProbedVideo>;
  /**
   * One decode serving every output (each with its own sampling, size and channels). With
   * `buffers`, an output's frame buffers come from its source (buffers the consumer is done
   * with) instead of new ones.
   */
  frames(
    path: string,
    probe: ProbedVideo,
    outputs: FrameOutput[],
    signal?: AbortSignal,
    buffers?: ReadonlyArray<FrameBufferSource | undefined>,
  ): AsyncGenerator<FrameGroup>;
}

export function createDecoder(options: DecoderOptions): Decoder {
  let codecs: Promise<Set<string>> | null = null;
  const decodable = (signal?: AbortSignal): Promise<Set<string>> => {
    codecs ??= listDecodableCodecs(options.ffmpegPath, signal).catch((err: unknown) => {
      codecs = null;
      throw err;
    });
    return codecs;
  };
  return {
    limits: options.limits,
    async probe(path, signal) {
      return probeVideo(path, {
        ffprobePath: options.ffprobePath,
        limits: options.limits,
        decodableCodecs: await decodable(signal),
        signal,
      });
    },
    frames(path, probe, outputs, signal, buffers) {
      return streamFrames(path, probe, {
        ffmpegPath: options.ffmpegPath,
        outputs,
        signal,
        ...(buffers ? { buffers } : {}),
        maxFrames: options.limits.maxFrames,
        ...(options.bands
          ? { bandAboveBytes: options.bands.aboveBytes, bandBytes: options.bands.bytes }
          : {}),
      });
    },
  };
}
