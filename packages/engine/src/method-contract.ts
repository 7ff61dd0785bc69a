/**
 * The internal contract between the engine's pipeline (decode → worker threads) and the
 * dimension methods. A method is pure, synchronous code on typed arrays: it says which frames it
 * needs, then consumes them one at a time (streaming, so a clip is never held whole in memory)
 * and produces one value. Methods run inside worker_threads; they must not import Node I/O.
 */
import type {
  AuxiliaryInfo,
  DimensionId,
  Frame,
  FrameSampling,
  MethodId,
  ModelRef,
  VideoProbe,
} from './contract.js';

/** What a method asks the decoder for. Requests that are equal share one decode. */
export interface FrameRequest {
  sampling: FrameSampling;
  /** Downscale (area) so that the longer side is at most this many pixels; null keeps native size. */
  maxSide: number | null;
  channels: 1 | 3;
}

export interface MethodContext {
  probe: VideoProbe;
  prompt?: string;
  auxiliary?: AuxiliaryInfo;
}

export interface MethodOutcome {
  value: number;
  details?: Record<string, number | string | boolean>;
  /** Source indices of the frames that contributed. */
  indices: number[];
  models?: ModelRef[];
}

/** A streaming accumulator for one clip. `push` receives frames in source order. */
export interface MethodRun {
  push(frame: Frame): void;
  finish(): MethodOutcome;
}

export interface DimensionMethod {
  dimension: DimensionId;
  id: MethodId;
  version: string;
  frames(probe: VideoProbe): FrameRequest;
  start(context: MethodContext): MethodRun;
}
