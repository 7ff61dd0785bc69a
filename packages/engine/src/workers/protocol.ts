/** Messages between the pipeline (main thread) and an evaluation worker. */
import type { DimensionId, EngineErrorCode, Frame, MethodId } from '../contract.js';
import type { MethodContext, MethodOutcome } from '../method-contract.js';
import type { InferenceSettings } from '../inference/settings.js';

export interface RunSpec {
  /** Run id within the job. */
  run: number;
  dimension: DimensionId;
  method: MethodId;
  /** Which job output (sampling × size × channels) feeds this run. */
  output: number;
}

export type ToWorker =
  | {
      type: 'start';
      job: number;
      catalog: string;
      runs: RunSpec[];
      context: MethodContext;
      inference?: InferenceSettings;
      /**
       * Acknowledge every `ackEvery`-th frames message (acks are cumulative; default 1). The pool
       * sends maxInFlight − 1, so it never waits on a message the worker will not acknowledge.
       */
      ackEvery?: number;
    }
  | {
      type: 'frames';
      job: number;
      seq: number;
      frames: FrameMessage[];
    }
  | { type: 'finish'; job: number }
  | { type: 'cancel'; job: number };

/** A frame of one output, or one band of it (`band` set; `frame.data` holds only its rows). */
export interface FrameMessage {
  output: number;
  frame: Frame;
  repeat: number;
  band?: { y: number; rows: number; last: boolean };
}

export type RunResult =
  | { run: number; ok: true; outcome: MethodOutcome; elapsedMs: number }
  | { run: number; ok: false; code: EngineErrorCode; detail: string; elapsedMs: number };

export type FromWorker =
  | { type: 'ack'; job: number; seq: number }
  | { type: 'result'; job: number; results: RunResult[] }
  | { type: 'job_failed'; job: number; detail: string };
