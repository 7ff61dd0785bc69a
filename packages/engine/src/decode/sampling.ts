/**
 * Frame sampling plans: which source frame indices a sampling selects, and the matching FFmpeg
 * `select` expression (so unselected frames are dropped before scaling and never leave FFmpeg).
 */
import type { FrameSampling } from '../contract.js';

/**
 * VBench's "middle" sampler (`get_frame_indices`, vbench-methods.md §1.3): n = min(N, L) bins with
 * edges int(k·L/n), the middle of each bin, then the last index repeated until there are N.
 */
export function uniformIndices(count: number, length: number): number[] {
  if (length <= 0 || count <= 0) return [];
  const n = Math.min(count, length);
  const edges: number[] = [];
  // numpy.linspace(0, L, n+1).astype(int): y_k = k·(L/n) in float64, last = L exactly, truncated.
  const step = length / n;
  for (let k = 0; k <= n; k++) edges.push(Math.trunc(k === n ? length : k * step));
  const out: number[] = [];
  for (let k = 0; k < n; k++) out.push(Math.floor((edges[k]! + edges[k + 1]! - 1) / 2));
  while (out.length < count) out.push(out[out.length - 1]!);
  return out;
}

/** `fps` sampling keeps frame i iff i = 0 or floor(i·f/F) > floor((i−1)·f/F): the first frame of each 1/f slot. */
function fpsKeeps(i: number, ratio: number): boolean {
  return i === 0 || Math.floor(i * ratio) > Math.floor((i - 1) * ratio);
}

/**
 * The source indices a sampling delivers, in order, for a clip of `length` frames at `fps`.
 * Only `uniform` can repeat an index (VBench pads short clips with the last frame).
 */
export function sampleIndices(sampling: FrameSampling, length: number, fps: number): number[] {
  const out: number[] = [];
  switch (sampling.kind) {
    case 'all':
      for (let i = 0; i < length; i++) out.push(i);
      return out;
    case 'every':
      for (let i = 0; i < length; i += sampling.step) out.push(i);
      return out;
    case 'uniform':
      return uniformIndices(sampling.count, length);
    case 'fps': {
      if (!(fps > 0) || sampling.fps >= fps) return sampleIndices({ kind: 'all' }, length, fps);
      const ratio = sampling.fps / fps;
      for (let i = 0; i < length; i++) if (fpsKeeps(i, ratio)) out.push(i);
      return out;
    }
  }
}

export function validateSampling(sampling: FrameSampling): string | null {
  switch (sampling.kind) {
    case 'all':
      return null;
    case 'every':
      return Number.isInteger(sampling.step) && sampling.step >= 1
        ? null
        : 'every.step must be an integer >= 1';
    case 'uniform':
      return Number.isInteger(sampling.count) && sampling.count >= 1
        ? null
        : 'uniform.count must be an integer >= 1';
    case 'fps':
      return Number.isFinite(sampling.fps) && sampling.fps > 0 ? null : 'fps.fps must be > 0';
  }
}

/**
 * FFmpeg `select` expression for a sampling (n = the decoded frame's index), or null when every
 * frame is kept. `uniform` lists its (few) distinct indices; `fps` uses the same arithmetic as
 * `sampleIndices` so both sides agree frame for frame.
 */
export function selectExpression(sampling: FrameSampling, length: number, fps: number): string | null {
  switch (sampling.kind) {
    case 'all':
      return null;
    case 'every':
      return sampling.step === 1 ? null : `not(mod(n,${sampling.step}))`;
    case 'uniform': {
      const distinct = [...new Set(uniformIndices(sampling.count, length))];
      if (distinct.length >= length) return null;
      return distinct.map((i) => `eq(n,${i})`).join('+');
    }
    case 'fps': {
      if (!(fps > 0) || sampling.fps >= fps) return null;
      const ratio = sampling.fps / fps;
      return `eq(n,0)+gt(floor(n*${ratio}),floor((n-1)*${ratio}))`;
    }
  }
}

/** Stable key: equal samplings share one decode. */
export function samplingKey(sampling: FrameSampling): string {
  switch (sampling.kind) {
    case 'all':
      return 'all';
    case 'every':
      return `every:${sampling.step}`;
    case 'uniform':
      return `uniform:${sampling.count}`;
    case 'fps':
      return `fps:${sampling.fps}`;
  }
}
