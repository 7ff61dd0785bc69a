/**
 * dynamic_degree, method `lite` (version 2): VBench's protocol (vbench-methods.md §2.5) on a classical flow.
 * - frames: every `interval`-th frame, interval = max(1, round(fps/8)) with Python rounding;
 * - per consecutive sampled pair: dense flow both ways (pyramidal Lucas–Kanade on grey, the
 *   working frame halved to longer side ≤ 128); pixels failing the forward–backward consistency
 *   test (Sundaram et al. 2010) count as not moving (version 2); magnitudes rescaled to native
 *   pixels; score = mean of the largest ⌊5 %⌋ of magnitudes (over the flow field less a 2-pixel
 *   border, where classical flow has no correspondence to use);
 * - thres = 6·min(H, W)/256 (native size); count_num = round(4·N/16), N = sampled frames;
 * - dynamic (1) as soon as the number of pair scores above thres reaches count_num, else 0.
 */
import { EngineError } from '../contract.js';
import type { Frame, VideoProbe } from '../contract.js';
import type { DimensionMethod, MethodContext, MethodOutcome, MethodRun } from '../method-contract.js';
import { computeFlow } from '../image/flow.js';
import type { FlowField, Pyramid } from '../image/flow.js';
import { sampleBilinear } from '../image/resize.js';
import { scratchF32 } from '../image/scratch.js';
import { FrameSizeGuard, roundHalfEven } from './common.js';
import { sharedFlowPyramid, workingRequest } from './working.js';

/** VBench's frame interval for a frame rate: max(1, round(fps/8)), round half to even. */
export function dynamicInterval(fps: number): number {
  if (!Number.isFinite(fps) || fps <= 0) return 1;
  return Math.max(1, roundHalfEven(fps / 8));
}

/** VBench's decision rule over the ordered pair scores. */
export function isDynamic(pairScores: number[], threshold: number, sampledFrames: number): boolean {
  const countNum = roundHalfEven((4 * sampledFrames) / 16);
  let count = 0;
  for (const s of pairScores) {
    if (s > threshold) count++;
    if (count >= countNum) return true;
  }
  return false;
}

/** Mean of the largest ⌊fraction·n⌋ values (at least one). `values` is reordered in place. */
export function topFractionMean(values: Float32Array, fraction: number): number {
  const n = values.length;
  if (n === 0) return 0;
  const k = Math.max(1, Math.floor(fraction * n));
  selectLargest(values, k);
  let s = 0;
  for (let i = n - k; i < n; i++) s += values[i]!;
  return s / k;
}

/** Quickselect (Hoare partition, middle pivot): moves the k largest values to the end, O(n). */
function selectLargest(a: Float32Array, k: number): void {
  const target = a.length - k;
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return;
  }
}

/** Flow pixels left out along each edge: classical flow is unreliable where content enters or leaves. */
const BORDER = 2;

/**
 * Native-pixel magnitudes of a forward flow, 0 where it fails the forward–backward consistency test
 * of Sundaram, Brox & Keutzer (ECCV 2010): |w + ŵ|² ≤ 0.01·(|w|² + |ŵ|²) + 0.5, with w the forward
 * flow at x and ŵ the backward flow at x + w (flow pixels). Such a pixel has no trustworthy
 * correspondence (occlusion, a textureless area, a flow error), and a classical flow at ≤ 128 px
 * turns its errors into many native pixels; RAFT's top 5 % are real motion. The values go into
 * `into` when it has their length (a caller's scratch), else into a new array.
 */
export function consistentMagnitudes(
  fwd: FlowField,
  back: FlowField,
  sx: number,
  sy: number,
  border: number,
  into?: Float32Array,
): { values: Float32Array; inconsistent: number } {
  const { width: w, height: h } = fwd;
  const m = w > 4 * border && h > 4 * border ? border : 0;
  const count = (w - 2 * m) * (h - 2 * m);
  const values = into && into.length === count ? into : new Float32Array(count);
  let k = 0;
  let bad = 0;
  for (let y = m; y < h - m; y++) {
    for (let x = m; x < w - m; x++) {
      const i = y * w + x;
      const u = fwd.u[i]!;
      const v = fwd.v[i]!;
      const bu = sampleBilinear(back.u, w, h, x + u, y + v);
      const bv = sampleBilinear(back.v, w, h, x + u, y + v);
      const du = u + bu;
      const dv = v + bv;
      const ok = du * du + dv * dv <= 0.01 * (u * u + v * v + bu * bu + bv * bv) + 0.5;
      if (!ok) bad++;
      const nu = u * sx;
      const nv = v * sy;
      values[k++] = ok ? Math.sqrt(nu * nu + nv * nv) : 0;
    }
  }
  return { values, inconsistent: values.length > 0 ? bad / values.length : 0 };
}

export const dynamicDegreeLite: DimensionMethod = {
  dimension: 'dynamic_degree',
  id: 'lite',
  version: '2',
  frames: () => workingRequest(),
  start: (context: MethodContext) => new DynamicRun(context.probe),
  releasesFrames: true,
};

class DynamicRun implements MethodRun {
  private readonly interval: number;
  private readonly guard = new FrameSizeGuard('dynamic_degree', 3);
  private ordinal = 0;
  private prev: Pyramid | null = null;
  private finest = 0;
  private readonly scores: number[] = [];
  private inconsistent = 0;
  private readonly indices: number[] = [];
  private flowSize = { width: 0, height: 0 };
  private frameSize = { width: 0, height: 0 };

  constructor(private readonly probe: VideoProbe) {
    this.interval = dynamicInterval(probe.fps);
  }

  push(frame: Frame): void {
    this.guard.check(frame);
    const ordinal = this.ordinal++;
    if (ordinal % this.interval !== 0) return;
    const { pyramid, finest } = sharedFlowPyramid(frame);
    this.finest = finest;
    this.frameSize = { width: frame.width, height: frame.height };
    if (this.prev) {
      const flow = computeFlow(this.prev, pyramid, undefined, finest);
      const back = computeFlow(pyramid, this.prev, undefined, finest);
      this.flowSize = { width: flow.width, height: flow.height };
      const { sx, sy } = this.nativeScale(flow.width, flow.height);
      const m = flow.width > 4 * BORDER && flow.height > 4 * BORDER ? BORDER : 0;
      const into = scratchF32('dynamicDegree.values', (flow.width - 2 * m) * (flow.height - 2 * m));
      const mags = consistentMagnitudes(flow, back, sx, sy, BORDER, into);
      this.scores.push(topFractionMean(mags.values, 0.05));
      this.inconsistent += mags.inconsistent;
    }
    this.prev = pyramid;
    this.indices.push(frame.index);
  }

  /** Native pixels per flow pixel along each axis. */
  private nativeScale(fw: number, fh: number): { sx: number; sy: number } {
    const { nw, nh } = this.nativeSize();
    return { sx: nw / fw, sy: nh / fh };
  }

  private nativeSize(): { nw: number; nh: number } {
    const nw = this.probe.displayWidth > 0 ? this.probe.displayWidth : this.frameSize.width;
    const nh = this.probe.displayHeight > 0 ? this.probe.displayHeight : this.frameSize.height;
    return { nw, nh };
  }

  finish(): MethodOutcome {
    const sampled = this.indices.length;
    if (sampled < 1) throw new EngineError('too_few_frames', 'dynamic_degree received no frames');
    const { nw, nh } = this.nativeSize();
    const threshold = (6 * Math.min(nw, nh)) / 256;
    const dynamic = isDynamic(this.scores, threshold, sampled);
    const sorted = [...this.scores].sort((a, b) => a - b);
    return {
      value: dynamic ? 1 : 0,
      indices: this.indices,
      details: {
        interval: this.interval,
        sampledFrames: sampled,
        threshold,
        countNum: roundHalfEven((4 * sampled) / 16),
        pairsAboveThreshold: this.scores.filter((s) => s > threshold).length,
        maxPairScore: sorted[sorted.length - 1] ?? 0,
        medianPairScore: sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0,
        flowWidth: this.flowSize.width,
        flowHeight: this.flowSize.height,
        flowLevel: this.finest,
        inconsistentShare: this.scores.length ? this.inconsistent / this.scores.length : 0,
      },
    };
  }
}
