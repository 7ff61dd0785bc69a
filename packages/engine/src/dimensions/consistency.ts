/**
 * subject_consistency and background_consistency, method `lite`: VBench's formula
 * (vbench-methods.md §2.1–2.2) over classical frame descriptors instead of DINO / CLIP features:
 *   s_t = ½·[max(0, cos(f_t, f_{t−1})) + max(0, cos(f_t, f_0))], value = mean over t ≥ 1,
 * f_t the descriptor of the frame at longer side ≤ 64, centre-weighted (Gaussian, σ = 0.2 of the
 * frame) for the subject and border-weighted (1 − 0.95·that) for the background.
 * - subject_consistency v1: `frameDescriptor` (zero-mean soft colour histograms and
 *   gradient-orientation histograms on a 4×4 grid plus one global block).
 * - background_consistency v2: `colourLayoutDescriptor` (the colour histograms alone, soft cells,
 *   Hellinger kernel); v1 used `frameDescriptor`.
 */
import { EngineError } from '../contract.js';
import type { DimensionId, Frame } from '../contract.js';
import type { DimensionMethod, MethodOutcome, MethodRun } from '../method-contract.js';
import { colourLayoutDescriptor, cosine, frameDescriptor } from '../image/descriptor.js';
import type { SpatialWeighting } from '../image/descriptor.js';
import type { RgbImage } from '../image/types.js';
import { FrameSizeGuard } from './common.js';
import { DESCRIPTOR_MAX_SIDE, sharedSmallRgb, workingRequest } from './working.js';

/** A frame descriptor for the consistency formula, and the name `details.descriptor` reports. */
interface Descriptor {
  name: string;
  describe: (img: RgbImage, kind: SpatialWeighting) => Float32Array;
}

export const HISTOGRAMS_V1: Descriptor = { name: 'colour+orientation', describe: frameDescriptor };
export const COLOUR_LAYOUT: Descriptor = { name: 'colour-layout', describe: colourLayoutDescriptor };

function consistencyMethod(
  dimension: DimensionId,
  weighting: SpatialWeighting,
  version: string,
  descriptor: Descriptor,
): DimensionMethod {
  return {
    dimension,
    id: 'lite',
    version,
    frames: () => workingRequest(),
    start: () => new ConsistencyRun(dimension, weighting, descriptor),
    releasesFrames: true,
  };
}

export const subjectConsistencyLite = consistencyMethod('subject_consistency', 'centre', '1', HISTOGRAMS_V1);
export const backgroundConsistencyLite = consistencyMethod(
  'background_consistency',
  'border',
  '2',
  COLOUR_LAYOUT,
);

class ConsistencyRun implements MethodRun {
  private readonly guard: FrameSizeGuard;
  private first: Float32Array | null = null;
  private prev: Float32Array | null = null;
  private sum = 0;
  private pairs = 0;
  private minFirst = 1;
  private minPrev = 1;
  private readonly indices: number[] = [];
  private size = { width: 0, height: 0 };

  constructor(
    private readonly dimension: DimensionId,
    private readonly weighting: SpatialWeighting,
    private readonly descriptor: Descriptor,
  ) {
    this.guard = new FrameSizeGuard(dimension, 3);
  }

  push(frame: Frame): void {
    this.guard.check(frame);
    const small = sharedSmallRgb(frame, DESCRIPTOR_MAX_SIDE);
    this.size = { width: small.width, height: small.height };
    const f = this.descriptor.describe(small, this.weighting);
    if (this.first && this.prev) {
      const cp = cosine(f, this.prev);
      const cf = cosine(f, this.first);
      this.sum += 0.5 * (Math.max(0, cp) + Math.max(0, cf));
      this.pairs++;
      if (cf < this.minFirst) this.minFirst = cf;
      if (cp < this.minPrev) this.minPrev = cp;
    } else {
      this.first = f;
    }
    this.prev = f;
    this.indices.push(frame.index);
  }

  finish(): MethodOutcome {
    if (this.pairs < 1) throw new EngineError('too_few_frames', `${this.dimension} needs at least 2 frames`);
    return {
      value: this.sum / this.pairs,
      indices: this.indices,
      details: {
        pairs: this.pairs,
        minCosineToFirst: this.minFirst,
        minCosineToPrevious: this.minPrev,
        weighting: this.weighting,
        descriptor: this.descriptor.name,
        descriptorWidth: this.size.width,
        descriptorHeight: this.size.height,
      },
    };
  }
}
