/**
 * The public contract of @vesta/engine: the types every consumer (server workers, CLI, tests)
 * codes against. Implementations live beside this file; this module holds no logic.
 */

/** VBench's 16 dimension ids (VBench 0.1.5, T2V). */
export const DIMENSION_IDS = [
  'subject_consistency',
  'background_consistency',
  'temporal_flickering',
  'motion_smoothness',
  'dynamic_degree',
  'aesthetic_quality',
  'imaging_quality',
  'object_class',
  'multiple_objects',
  'human_action',
  'color',
  'spatial_relationship',
  'scene',
  'appearance_style',
  'temporal_style',
  'overall_consistency',
] as const;
export type DimensionId = (typeof DIMENSION_IDS)[number];

export type DimensionCategory = 'quality' | 'semantic';

/** `vbench`: VBench's own protocol and model; `lite`: a classical component replaces a model. */
export type MethodId = 'vbench' | 'lite' | (string & {});

/** Auxiliary prompt info that semantic dimensions need (VBench's `auxiliary_info`). */
export type AuxiliaryKey = 'object' | 'color' | 'relationship' | 'scene' | 'appearance_style' | 'action';
export type AuxiliaryInfo = Partial<Record<AuxiliaryKey, string>> & {
  object_a?: string;
  object_b?: string;
};

/** What a method needs before it can run. */
export interface MethodRequirements {
  /** Model ids from the model manifest; empty for model-free methods. */
  models: string[];
  /** Auxiliary prompt info keys the method reads. */
  auxiliary: AuxiliaryKey[];
  /** True when the method reads the clip's text prompt. */
  prompt: boolean;
}

export interface MethodInfo {
  id: MethodId;
  version: string;
  description: string;
  requires: MethodRequirements;
  /** True when this engine build can run it right now (models present, implementation shipped). */
  available: boolean;
  /** Why it is not available, when it is not. */
  unavailableReason?: string;
}

/** VBench leaderboard normalisation: n = weight·(x − min)/(max − min), not clamped. */
export interface LeaderboardNormalisation {
  min: number;
  max: number;
  weight: number;
}

export interface DimensionInfo {
  id: DimensionId;
  name: string;
  description: string;
  category: DimensionCategory;
  higherIsBetter: boolean;
  range: { min: number; max: number };
  methods: MethodInfo[];
  /** Method used when the caller does not choose one: the best available. */
  defaultMethod: MethodId | null;
  normalisation: LeaderboardNormalisation;
  /** Workflows that score this dimension: Score/Rank sessions run only those usable on custom clips. */
  workflows: Array<'score' | 'rank' | 'bench'>;
}

/** What the decoder learns about a clip without decoding all of it. */
export interface VideoProbe {
  /** Container format name as FFmpeg reports it (e.g. "mov,mp4,m4a,3gp,3g2,mj2", "gif", "avi"). */
  container: string;
  /** Video codec name (e.g. "h264", "hevc", "vp9", "mpeg4", "gif", "av1"). */
  codec: string;
  /** Coded size. */
  width: number;
  height: number;
  /** Display rotation in degrees (0, 90, 180, 270), from side data or the rotate tag. */
  rotation: number;
  /** Size after applying rotation (what a viewer sees, what frames are delivered in). */
  displayWidth: number;
  displayHeight: number;
  /**
   * Frames per second: the container's mean rate (what VBench's fps-based samplers read), or the
   * rate the engine assumed when the clip states none it can use (`fpsAssumed`).
   */
  fps: number;
  /**
   * True when `fps` (and so `durationSeconds` and each frame's time) is an assumption: a GIF with
   * frames that carry no delay or one under 2 cs (read as 10 cs, browsers' convention), or a
   * stream with no rate and no duration (25 fps, FFmpeg's convention). docs/decoding.md.
   */
  fpsAssumed: boolean;
  /** Exact when the container says so or when counted; see `frameCountExact`. */
  frameCount: number;
  frameCountExact: boolean;
  durationSeconds: number;
  bitRate: number | null;
  sizeBytes: number;
}

/** How frames are sampled from a clip. */
export type FrameSampling =
  | { kind: 'all' }
  | { kind: 'every'; step: number }
  | { kind: 'uniform'; count: number } // VBench's "middle" sampler (vbench-methods.md §1.3)
  | { kind: 'fps'; fps: number };

/** One decoded frame, tightly packed, row-major. */
export interface Frame {
  index: number; // index in the source clip
  timeSeconds: number;
  width: number;
  height: number;
  channels: 1 | 3; // 1 = grey (luma), 3 = RGB24
  data: Uint8Array;
}

/** The frames a score was computed on. */
export interface FramesUsed {
  count: number;
  sampling: FrameSampling;
  width: number;
  height: number;
  indices?: number[];
  /** The clip's frame rate the sampling and the frames' times were computed with (`VideoProbe.fps`). */
  fps: number;
  /** True when that rate is an assumption (`VideoProbe.fpsAssumed`): the clip states no usable one. */
  fpsAssumed: boolean;
}

export interface ModelRef {
  id: string;
  revision: string;
  precision?: string;
}

export interface DimensionScore {
  dimension: DimensionId;
  /** The per-clip value in the dimension's range; for dynamic_degree 0 or 1 (VBench's boolean). */
  value: number;
  method: MethodId;
  methodVersion: string;
  frames: FramesUsed;
  models: ModelRef[];
  /** Method-specific intermediate values (documented per method in docs/dimensions.md). */
  details?: Record<string, number | string | boolean>;
  elapsedMs: number;
}

export interface DimensionFailure {
  dimension: DimensionId;
  code: EngineErrorCode;
  detail: string;
}

export interface EvaluationResult {
  probe: VideoProbe;
  scores: DimensionScore[];
  failures: DimensionFailure[];
  elapsedMs: number;
  decodeMs: number;
}

export interface EvaluateOptions {
  dimensions: DimensionId[];
  /** Force a method per dimension; default is the dimension's `defaultMethod`. */
  methods?: Partial<Record<DimensionId, MethodId>>;
  prompt?: string;
  auxiliary?: AuxiliaryInfo;
  signal?: AbortSignal;
  /**
   * A probe of this same file from `Engine.probe` (kept, e.g. from an upload's verification): the
   * clip is not probed again. Its limits are checked again, and when the file's size differs from
   * the probe's the file is probed anew.
   */
  probe?: ClipProbe;
}

/** A probe as `Engine.probe` returns it: the public probe plus the video stream decoded from. */
export interface ClipProbe extends VideoProbe {
  streamIndex: number;
}

export interface EngineLimits {
  maxWidth: number; // default 7680
  maxHeight: number; // default 4320
  maxPixels: number; // width*height, default 7680*4320
  maxDurationSeconds: number; // default 600
  maxFrames: number; // default 20000
  /**
   * Decoded work known at probe time: width × height × frames (default 6e9, e.g. 1080p for 96 s or
   * 4K for 24 s at 30 fps). Over it: `decoded_work_too_large`, before a frame is decoded.
   */
  maxDecodedPixels: number;
  /**
   * Wall-clock budget of one evaluation: `clipBudgetBaseSeconds + clipBudgetSecondsPerClipSecond ×
   * duration` (defaults 60 + 10 per second of clip). It covers a decoder that stalls and one that
   * crawls; over it the evaluation stops (FFmpeg killed, workers dropped) with `clip_budget_exceeded`.
   */
  clipBudgetBaseSeconds: number;
  clipBudgetSecondsPerClipSecond: number;
  maxFileBytes: number; // default 2 GiB
}

export interface EngineOptions {
  limits?: Partial<EngineLimits>;
  /** worker_threads for pixel work; default min(2, os.availableParallelism()). */
  threads?: number;
  /** Override the ffmpeg / ffprobe binaries (default: the ones shipped through npm). */
  ffmpegPath?: string;
  ffprobePath?: string;
}

export interface Engine {
  probe(path: string, signal?: AbortSignal): Promise<ClipProbe>;
  evaluate(path: string, options: EvaluateOptions): Promise<EvaluationResult>;
  /**
   * The 16 dimensions with their methods and which are available now. The listing is shared and
   * frozen; it is made again when the model store's installed state changes, a pull fails, or
   * 250 ms have passed.
   */
  dimensions(): readonly DimensionInfo[];
  /** Rejects when the engine cannot decode: its FFmpeg binaries are missing or not executable. Cheap (two `access` calls), for readiness probes. */
  checkReady(): Promise<void>;
  close(): Promise<void>;
}

/** Stable engine error codes; the server maps them onto video `failed` states and API errors. */
export const ENGINE_ERROR_CODES = [
  'empty_file',
  'not_a_video',
  'no_video_stream',
  'unsupported_codec',
  'truncated',
  'resolution_too_large',
  'duration_too_long',
  'too_many_frames',
  'decoded_work_too_large',
  'clip_budget_exceeded',
  'file_too_large',
  'too_few_frames',
  'decode_failed',
  'unknown_dimension',
  'method_unavailable',
  'model_unavailable',
  'missing_prompt',
  'missing_auxiliary',
  'aborted',
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
