/**
 * Motion dimensions on flow / interpolation models (substitutes named by model, since VBench's
 * own checkpoints have no ONNX export):
 * - dynamic_degree, `raft`: RAFT (OpenCV-zoo ONNX export, Sintel weights) on VBench's frame
 *   sampling (every round(fps/8)-th frame, §2.5). Each sampled frame is resized (bilinear) to the
 *   model's input size when the export fixes one (360×480), else padded to a multiple of 8 by
 *   edge replication; pixels are RGB 0..255. The last output is the (upsampled) flow [1,2,H,W];
 *   pair score = mean of the largest 5 % of flow magnitudes; VBench's threshold 6·min(H,W)/256 is
 *   taken at the flow's size; the clip is dynamic when round(4N/16) pairs exceed it.
 * - motion_smoothness, `rife`: RIFE v4.9 interpolates each odd frame from its even neighbours at
 *   t = 0.5 (§2.4): frames in [0,1], padded to a multiple of 32 by edge replication, output
 *   ×255 truncated to uint8 and compared with the real odd frame; value = (255 − mean MAE)/255.
 */
import type * as ort from 'onnxruntime-node';
import { EngineError } from '../../contract.js';
import type { Frame } from '../../contract.js';
import { floatInput, floatOutput } from '../../inference/tensors.js';
import { loadOrt } from '../../inference/runtime.js';
import type { AsyncMethodRun, MethodContext, MethodOutcome, ModelMethod } from '../../method-contract.js';
import { resizeInterleaved } from '../../preprocess/resize.js';
import { FrameSizeGuard, roundHalfEven } from '../common.js';
import { dynamicInterval, isDynamic, topFractionMean } from '../dynamic-degree.js';
import { predictionMae } from '../motion-smoothness.js';
import { allNative, inferenceOf, MODEL_IDS, refsOf } from './common.js';

/** Planar float [3, H, W] of an RGB frame, edge-padded to (ph, pw), values × `scale`. */
export function padPlanar(frame: Frame, ph: number, pw: number, scale: number): Float32Array {
  const { width: w, height: h, data } = frame;
  const out = new Float32Array(3 * ph * pw);
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < ph; y++) {
      const sy = Math.min(h - 1, Math.max(0, y - Math.floor((ph - h) / 2)));
      for (let x = 0; x < pw; x++) {
        const sx = Math.min(w - 1, Math.max(0, x - Math.floor((pw - w) / 2)));
        out[(c * ph + y) * pw + x] = data[(sy * w + sx) * 3 + c]! * scale;
      }
    }
  }
  return out;
}

const roundUp = (n: number, m: number): number => Math.ceil(n / m) * m;

/** Fixed spatial input size of a session's first input, or null when symbolic. */
function fixedSize(session: ort.InferenceSession): { height: number; width: number } | null {
  const meta = session.inputMetadata[0];
  if (!meta || !meta.isTensor || meta.shape.length !== 4) return null;
  const [, , h, w] = meta.shape;
  return typeof h === 'number' && typeof w === 'number' && h > 0 && w > 0 ? { height: h, width: w } : null;
}

export const dynamicDegreeRaft: ModelMethod = {
  dimension: 'dynamic_degree',
  id: 'raft',
  version: '1',
  models: [MODEL_IDS.raft],
  frames: () => allNative(),
  start: (context: MethodContext): AsyncMethodRun => new RaftRun(context),
};

class RaftRun implements AsyncMethodRun {
  private readonly guard = new FrameSizeGuard('dynamic_degree', 3);
  private readonly interval: number;
  private ordinal = 0;
  private prev: Float32Array | null = null;
  private readonly scores: number[] = [];
  private readonly indices: number[] = [];
  private flow = { width: 0, height: 0 };
  private readonly session: Promise<ort.InferenceSession>;
  private readonly inference;

  constructor(context: MethodContext) {
    this.inference = inferenceOf(context, 'dynamic_degree');
    this.interval = dynamicInterval(context.probe.fps);
    this.session = this.inference.session(MODEL_IDS.raft, 'flow');
    this.session.catch(() => undefined);
  }

  async push(frame: Frame): Promise<void> {
    this.guard.check(frame);
    if (this.ordinal++ % this.interval !== 0) return;
    const session = await this.session;
    const runtime = await loadOrt();
    const fixed = fixedSize(session);
    let h: number;
    let w: number;
    let input: Float32Array;
    if (fixed) {
      ({ height: h, width: w } = fixed);
      input = resizeInterleaved(frame.data, frame.width, frame.height, 3, w, h, 'bilinear').data;
    } else {
      h = roundUp(frame.height, 8);
      w = roundUp(frame.width, 8);
      input = padPlanar(frame, h, w, 1);
    }
    this.indices.push(frame.index);
    if (this.prev) {
      const [a, b] = session.inputNames as [string, string];
      const out = await session.run({
        [a]: floatInput(runtime, session, a, this.prev, [1, 3, h, w]),
        [b]: floatInput(runtime, session, b, input, [1, 3, h, w]),
      });
      const name = session.outputNames[session.outputNames.length - 1]!;
      const { data, dims } = floatOutput(out[name], name);
      const [, c, fh, fw] = dims as [number, number, number, number];
      if (c !== 2) throw new EngineError('decode_failed', `dynamic_degree: flow output has ${c} channels`);
      this.flow = { width: fw, height: fh };
      const plane = fh * fw;
      const mags = new Float32Array(plane);
      for (let i = 0; i < plane; i++) mags[i] = Math.hypot(data[i]!, data[plane + i]!);
      this.scores.push(topFractionMean(mags, 0.05));
    }
    this.prev = input;
  }

  finish(): Promise<MethodOutcome> {
    const sampled = this.indices.length;
    if (sampled < 1)
      return Promise.reject(new EngineError('too_few_frames', 'dynamic_degree received no frames'));
    const threshold = (6 * Math.min(this.flow.width || 1, this.flow.height || 1)) / 256;
    const dynamic = isDynamic(this.scores, threshold, sampled);
    return Promise.resolve({
      value: dynamic ? 1 : 0,
      indices: this.indices,
      models: refsOf(this.inference, [MODEL_IDS.raft]),
      details: {
        interval: this.interval,
        sampledFrames: sampled,
        threshold,
        countNum: roundHalfEven((4 * sampled) / 16),
        pairsAboveThreshold: this.scores.filter((s) => s > threshold).length,
        maxPairScore: this.scores.length ? Math.max(...this.scores) : 0,
        flowWidth: this.flow.width,
        flowHeight: this.flow.height,
      },
    });
  }
}

export const motionSmoothnessRife: ModelMethod = {
  dimension: 'motion_smoothness',
  id: 'rife',
  version: '1',
  models: [MODEL_IDS.rife],
  frames: () => allNative(),
  start: (context: MethodContext): AsyncMethodRun => new RifeRun(context),
};

/** Unpads a planar [3, ph, pw] 0..1 prediction to interleaved 0..255 floats of (h, w). */
export function unpadToInterleaved(
  pred: Float32Array,
  ph: number,
  pw: number,
  h: number,
  w: number,
): Float32Array {
  const out = new Float32Array(h * w * 3);
  const top = Math.floor((ph - h) / 2);
  const left = Math.floor((pw - w) / 2);
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) out[(y * w + x) * 3 + c] = pred[(c * ph + y + top) * pw + x + left]! * 255;
    }
  }
  return out;
}

class RifeRun implements AsyncMethodRun {
  private readonly guard = new FrameSizeGuard('motion_smoothness', 3);
  private ordinal = 0;
  private even: Float32Array | null = null;
  private odd: Uint8Array | null = null;
  private oddIndex = -1;
  private sum = 0;
  private count = 0;
  private maxMae = 0;
  private readonly indices: number[] = [];
  private readonly session: Promise<ort.InferenceSession>;
  private readonly inference;

  constructor(context: MethodContext) {
    this.inference = inferenceOf(context, 'motion_smoothness');
    this.session = this.inference.session(MODEL_IDS.rife, 'interpolator');
    this.session.catch(() => undefined);
  }

  async push(frame: Frame): Promise<void> {
    this.guard.check(frame);
    if (this.ordinal++ % 2 === 1) {
      this.odd = frame.data;
      this.oddIndex = frame.index;
      return;
    }
    const ph = roundUp(frame.height, 32);
    const pw = roundUp(frame.width, 32);
    const cur = padPlanar(frame, ph, pw, 1 / 255);
    if (this.even && this.odd) {
      const session = await this.session;
      const runtime = await loadOrt();
      const dims = [1, 3, ph, pw];
      const tMeta = session.inputMetadata.find((m) => m.name === 'timestep');
      const tShape = tMeta && tMeta.isTensor && tMeta.shape.length === 4 ? [1, 1, ph, pw] : [1];
      const tSize = tShape.reduce((a, b) => a * b, 1);
      const out = await session.run({
        img0: floatInput(runtime, session, 'img0', this.even, dims),
        img1: floatInput(runtime, session, 'img1', cur, dims),
        timestep: floatInput(runtime, session, 'timestep', new Float32Array(tSize).fill(0.5), tShape),
      });
      const name = session.outputNames[0]!;
      const { data } = floatOutput(out[name], name);
      const mae = predictionMae(unpadToInterleaved(data, ph, pw, frame.height, frame.width), this.odd);
      this.sum += mae;
      this.count++;
      this.maxMae = Math.max(this.maxMae, mae);
      this.indices.push(this.oddIndex);
      this.odd = null;
    }
    this.even = cur;
    this.indices.push(frame.index);
  }

  finish(): Promise<MethodOutcome> {
    if (this.count < 1) {
      return Promise.reject(
        new EngineError('too_few_frames', 'motion_smoothness needs at least 3 frames (two even, one odd)'),
      );
    }
    const meanMae = this.sum / this.count;
    return Promise.resolve({
      value: (255 - meanMae) / 255,
      indices: this.indices.sort((a, b) => a - b),
      models: refsOf(this.inference, [MODEL_IDS.rife]),
      details: { meanAbsError: meanMae, maxAbsError: this.maxMae, interpolatedFrames: this.count },
    });
  }
}
