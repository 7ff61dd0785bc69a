/**
 * The internal contract between the engine's pipeline (decode → worker threads) and the
 * dimension methods. A method is pure, synchronous code on typed arrays: it says which frames it
 * needs, then consumes them one at a time (streaming, so a clip is never held whole in memory)
 * and produces one value. Methods run inside worker_threads; they must not import Node I/O.
 *
 * Model-backed methods (`ModelMethod`) are the exception: their run is asynchronous (inference
 * through onnxruntime returns promises; `push` may wait while a batch runs, which is how they hold
 * the decoder back) and they read their model files (paths resolved by the pipeline through the
 * model store, arriving in `MethodContext.models`) through the worker's `JobInference`.
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
import type { JobInference, ModelFiles } from './inference/job.js';

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
  /** Local files of the models the evaluation's model-backed methods need (resolved by the pipeline). */
  models?: Record<string, ModelFiles>;
  /** The worker's inference for this evaluation (set inside the worker; never serialised). */
  inference?: JobInference;
}

export interface MethodOutcome {
  value: number;
  details?: Record<string, number | string | boolean>;
  /** Source indices of the frames that contributed. */
  indices: number[];
  models?: ModelRef[];
}

/**
 * Rows [y, y + rows) of a frame: `index`, `timeSeconds`, `width`, `height` and `channels` are
 * the whole frame's; `data` holds rows × width × channels bytes; `last` ends the frame. Very large
 * native frames (4K and up) reach a run that accepts them in bands of a few MiB, in row order, so
 * that a frame is never held whole.
 */
export interface FrameBand extends Frame {
  y: number;
  rows: number;
  last: boolean;
}

/**
 * A streaming accumulator for one clip. `push` receives frames in source order. A run with
 * `pushBand` receives large frames as bands instead (all of a frame's bands in order, frames in
 * source order); a run without it receives them whole.
 */
export interface MethodRun {
  push(frame: Frame): void;
  pushBand?(band: FrameBand): void;
  finish(): MethodOutcome;
}

export interface DimensionMethod {
  dimension: DimensionId;
  id: MethodId;
  version: string;
  frames(probe: VideoProbe): FrameRequest;
  start(context: MethodContext): MethodRun;
  /**
   * True when a run keeps nothing of a frame's `data` (nor the frame object) once `push` or
   * `pushBand` returns (values computed from it are fine). When every run reading an output says
   * so, the worker gives the frame's buffer back to the decoder, which overwrites it with a later
   * frame. Leave unset for a method that holds frames.
   */
  releasesFrames?: boolean;
}

/**
 * A model-backed run: `push` may return a promise (the worker awaits it before acknowledging the
 * frame, so a batch in flight holds the decoder back) and `finish` is asynchronous (the last
 * batch runs there).
 */
export interface AsyncMethodRun {
  push(frame: Frame): void | Promise<void>;
  finish(): Promise<MethodOutcome>;
}

/** A model-backed method: like `DimensionMethod`, with an asynchronous run. */
export interface ModelMethod {
  dimension: DimensionId;
  id: MethodId;
  version: string;
  /** Model ids it needs (resolved to files before the run starts). */
  models: readonly string[];
  frames(probe: VideoProbe): FrameRequest;
  start(context: MethodContext): AsyncMethodRun;
}

/** Any method the catalog returns. */
export type AnyMethod = DimensionMethod | ModelMethod;
