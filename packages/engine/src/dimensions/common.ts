/** Helpers shared by the dimension methods. */
import { EngineError } from '../contract.js';
import type { DimensionId, Frame } from '../contract.js';
import type { FrameBand } from '../method-contract.js';

/** Rejects frames whose size or channel count changes mid-clip, or that do not fit their buffer. */
export class FrameSizeGuard {
  private width = -1;
  private height = -1;
  constructor(
    private readonly dimension: DimensionId,
    private readonly channels: 1 | 3,
  ) {}

  check(frame: Frame): void {
    if (frame.channels !== this.channels) {
      throw new EngineError(
        'decode_failed',
        `${this.dimension}: expected ${this.channels}-channel frames, got ${frame.channels}`,
      );
    }
    if (
      frame.width < 1 ||
      frame.height < 1 ||
      frame.data.length !== frame.width * frame.height * frame.channels
    ) {
      throw new EngineError(
        'decode_failed',
        `${this.dimension}: frame ${frame.index} has an inconsistent size`,
      );
    }
    if (this.width < 0) {
      this.width = frame.width;
      this.height = frame.height;
    } else if (frame.width !== this.width || frame.height !== this.height) {
      throw new EngineError(
        'decode_failed',
        `${this.dimension}: frame size changed mid-clip at frame ${frame.index}`,
      );
    }
  }
}

/**
 * `FrameSizeGuard` for bands: the same checks, and that a frame's bands come in row order, each
 * holding its rows and the last one ending the frame.
 */
export class BandGuard {
  private readonly frames: FrameSizeGuard;
  private nextRow = 0;
  constructor(
    private readonly dimension: DimensionId,
    channels: 1 | 3,
  ) {
    this.frames = new FrameSizeGuard(dimension, channels);
  }

  check(band: FrameBand): void {
    if (band.y === 0)
      this.frames.check({
        ...band,
        data: { length: band.width * band.height * band.channels } as Uint8Array,
      });
    const bad =
      band.y !== this.nextRow ||
      band.rows < 1 ||
      band.y + band.rows > band.height ||
      band.last !== (band.y + band.rows === band.height) ||
      band.data.length !== band.rows * band.width * band.channels;
    if (bad)
      throw new EngineError(
        'decode_failed',
        `${this.dimension}: frame ${band.index} arrived in inconsistent bands`,
      );
    this.nextRow = band.last ? 0 : band.y + band.rows;
  }
}

/** Python's round(): halves go to the even neighbour (round(0.5) = 0, round(2.5) = 2). */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x);
  const diff = x - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}
