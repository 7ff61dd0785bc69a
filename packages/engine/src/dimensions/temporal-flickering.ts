/**
 * temporal_flickering, method `vbench` (vbench-methods.md §2.3): VBench's exact formula, no model.
 * Every frame at native resolution, RGB; MAE_t = mean over all H×W×3 values of |I_t − I_{t+1}|;
 * value = (255 − mean_t MAE_t)/255. VBench evaluates only clips that pass its RAFT static filter;
 * here any clip is scored and `details.staticFilter` says the filter was not applied.
 * The sums are exact integers, from a WebAssembly SIMD kernel when available (else a scalar loop).
 */
import { EngineError } from '../contract.js';
import type { Frame } from '../contract.js';
import type { DimensionMethod, FrameBand, MethodOutcome, MethodRun } from '../method-contract.js';
import { meanAbsDiff, sumAbsDiff } from '../image/diff.js';
import { createAbsDiffSummer } from '../image/sad.js';
import type { AbsDiffSummer } from '../image/sad.js';
import { BandGuard, FrameSizeGuard } from './common.js';
import { nativeRequest } from './working.js';

export const temporalFlickeringVbench: DimensionMethod = {
  dimension: 'temporal_flickering',
  id: 'vbench',
  version: '1',
  frames: () => nativeRequest(),
  start: () => new FlickerRun(createAbsDiffSummer()),
  releasesFrames: true,
};

/** The same method on the scalar path only (tests compare the two). */
export function startScalarFlickerRun(): MethodRun {
  return new FlickerRun(null);
}

class FlickerRun implements MethodRun {
  private prev: Uint8Array | null = null;
  private sum = 0;
  private pairs = 0;
  private maxMae = 0;
  private readonly indices: number[] = [];
  private readonly guard = new FrameSizeGuard('temporal_flickering', 3);

  constructor(private readonly summer: AbsDiffSummer | null) {}

  private readonly bandGuard = new BandGuard('temporal_flickering', 3);
  /** Band mode without WebAssembly: the previous frame, overwritten band by band. */
  private bandPrev: Uint8Array | null = null;
  private bandHasPrev = false;
  private bandTotal = 0;

  /** The same sums from bands: only the previous frame and one band are held. */
  pushBand(band: FrameBand): void {
    this.bandGuard.check(band);
    const length = band.width * band.height * 3;
    const offset = band.y * band.width * 3;
    let total: number | null = null;
    if (this.summer) {
      total = this.summer.pushBand(band.data, offset, length, band.last);
    } else {
      if (band.y === 0) this.bandTotal = 0;
      if (!this.bandPrev || this.bandPrev.length !== length) {
        this.bandPrev = new Uint8Array(length);
        this.bandHasPrev = false;
      }
      const prev = this.bandPrev.subarray(offset, offset + band.data.length);
      if (this.bandHasPrev) this.bandTotal += sumAbsDiff(prev, band.data);
      prev.set(band.data);
      if (band.last) {
        total = this.bandHasPrev ? this.bandTotal : null;
        this.bandHasPrev = true;
      }
    }
    if (!band.last) return;
    this.count(total === null ? null : total / length, band.index);
  }

  private count(mae: number | null, index: number): void {
    if (mae !== null) {
      this.sum += mae;
      this.pairs += 1;
      if (mae > this.maxMae) this.maxMae = mae;
    }
    this.indices.push(index);
  }

  push(frame: Frame): void {
    this.guard.check(frame);
    let mae: number | null = null;
    if (this.summer) {
      const total = this.summer.push(frame.data);
      if (total !== null) mae = total / frame.data.length;
    } else if (this.prev) {
      mae = meanAbsDiff(this.prev, frame.data);
      this.prev.set(frame.data);
    } else {
      this.prev = new Uint8Array(frame.data);
    }
    if (mae !== null) {
      this.sum += mae;
      this.pairs += 1;
      if (mae > this.maxMae) this.maxMae = mae;
    }
    this.indices.push(frame.index);
  }

  finish(): MethodOutcome {
    if (this.pairs < 1) {
      throw new EngineError('too_few_frames', 'temporal_flickering needs at least 2 frames');
    }
    const meanMae = this.sum / this.pairs;
    return {
      value: (255 - meanMae) / 255,
      indices: this.indices,
      details: {
        meanAbsDiff: meanMae,
        maxPairAbsDiff: this.maxMae,
        pairs: this.pairs,
        staticFilter: 'not_applied',
        simd: this.summer !== null,
      },
    };
  }
}
