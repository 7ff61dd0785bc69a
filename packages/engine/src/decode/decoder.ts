/** The decoder used by the engine: shipped FFmpeg binaries, limits, and the decodable-codec list. */
import type { EngineLimits } from '../contract.js';
import { listDecodableCodecs } from './codecs.js';
import { streamFrames } from './frame-stream.js';
import type { FrameGroup, FrameOutput } from './frame-stream.js';
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
  /** One decode serving every output (each with its own sampling, size and channels). */
  frames(
    path: string,
    probe: ProbedVideo,
    outputs: FrameOutput[],
    signal?: AbortSignal,
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
    frames(path, probe, outputs, signal) {
      return streamFrames(path, probe, {
        ffmpegPath: options.ffmpegPath,
        outputs,
        signal,
        maxFrames: options.limits.maxFrames,
        ...(options.bands
          ? { bandAboveBytes: options.bands.aboveBytes, bandBytes: options.bands.bytes }
          : {}),
      });
    },
  };
}
