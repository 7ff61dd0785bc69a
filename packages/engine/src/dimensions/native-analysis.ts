/**
 * What the imaging- and aesthetic-quality proxies read from a native-resolution frame, computed
 * from its rows as they arrive: the luma analysis frame (VBench's `longer` rule for MUSIQ's input:
 * longer side > 512 → area-scaled to 512), the 8×8-grid blockiness of the native luma, and the
 * white-noise levels of the analysis frame. A frame is never needed whole (a band of rows at a
 * time is enough) and no native-size float copy is made. The values are exactly those of
 * `analysisFrame(frameToGrey(frame))`, `blockiness(frameToGrey(frame))` and
 * `noiseLevels(analysis)`: the same arithmetic in the same order.
 */
import type { Frame } from '../contract.js';
import { AreaResizer } from '../image/resize.js';
import { noiseLevels } from '../image/sharpness.js';
import type { GreyImage } from '../image/types.js';
import { derived } from './working.js';

/** Longer side of the analysis frame: VBench's `longer` rule for MUSIQ's input. */
export const ANALYSIS_MAX_SIDE = 512;

export interface NativeSummary {
  /** The luma frame with its longer side at most 512 (area). */
  analysis: GreyImage;
  /** `blockiness` of the native luma. */
  blockiness: number;
  /** `noiseLevels(analysis)`: Immerkær's σ of the analysis frame and of two 2×2 halvings. */
  noise: number[];
}

/** Size of the analysis frame of a width × height frame. */
export function analysisSize(width: number, height: number): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= ANALYSIS_MAX_SIDE) return { width, height };
  const s = ANALYSIS_MAX_SIDE / long;
  return {
    width: Math.max(1, Math.round(width * s)),
    height: Math.max(1, Math.round(height * s)),
  };
}

/** Accumulates a frame's `NativeSummary` row by row (rows in order, each exactly once). */
export class NativeAnalyzer {
  private readonly resizer: AreaResizer | null;
  /** The whole luma frame, when it is its own analysis frame (longer side ≤ 512). */
  private readonly whole: Float32Array | null;
  private grey: Float32Array;
  private prevGrey: Float32Array;
  private next = 0;
  // Blockiness: the horizontal sums in the order `blockiness` adds them; the vertical row sums
  // are kept and added afterwards, as `blockiness` does after its horizontal pass.
  private readonly blocky: boolean;
  private sb = 0;
  private nb = 0;
  private sn = 0;
  private nn = 0;
  private readonly rowSums: Float64Array;

  constructor(
    readonly width: number,
    readonly height: number,
    private readonly channels: 1 | 3,
  ) {
    const size = analysisSize(width, height);
    const resized = size.width !== width || size.height !== height;
    this.resizer = resized ? new AreaResizer(width, height, size.width, size.height, 1) : null;
    this.whole = resized ? null : new Float32Array(width * height);
    this.grey = new Float32Array(width);
    this.prevGrey = new Float32Array(width);
    this.blocky = !(width < 16 && height < 16);
    this.rowSums = new Float64Array(this.blocky ? height : 0);
  }

  /** `rows` rows of packed pixels (`channels` bytes each), starting at row `y0` of the frame. */
  rows(data: Uint8Array, y0: number, rows: number): void {
    if (y0 !== this.next) throw new RangeError(`NativeAnalyzer: expected row ${this.next}, got ${y0}`);
    const w = this.width;
    const c = this.channels;
    const fround = Math.fround;
    for (let r = 0; r < rows; r++) {
      const y = y0 + r;
      const g = this.whole ? this.whole.subarray(y * w, y * w + w) : this.grey;
      const p = y === 0 ? null : this.whole ? this.whole.subarray((y - 1) * w, y * w) : this.prevGrey;
      const base = r * w * c;
      // One walk over the row: its luma (stored as float32, and used as stored) and, for
      // blockiness, the differences to the pixel on its left and to the one above, added in
      // the order `blockiness` adds them (left to right; the vertical sum per row on its own).
      let { sb, nb, sn, nn } = this;
      let s = 0;
      let left = 0;
      for (let x = 0, j = base; x < w; x++, j += c) {
        const v = c === 1 ? data[j]! : fround(0.299 * data[j]! + 0.587 * data[j + 1]! + 0.114 * data[j + 2]!);
        g[x] = v;
        if (x > 0) {
          const d = Math.abs(v - left);
          if ((x & 7) === 0) {
            sb += d;
            nb++;
          } else {
            sn += d;
            nn++;
          }
        }
        if (p !== null) s += Math.abs(v - p[x]!);
        left = v;
      }
      if (this.blocky) {
        this.sb = sb;
        this.nb = nb;
        this.sn = sn;
        this.nn = nn;
        if (p !== null) this.rowSums[y] = s;
      }
      this.resizer?.row(y, g, 0);
      if (!this.whole) {
        const t = this.prevGrey;
        this.prevGrey = this.grey;
        this.grey = t;
      }
    }
    this.next = y0 + rows;
  }

  finish(): NativeSummary {
    if (this.next !== this.height)
      throw new RangeError(`NativeAnalyzer: ${this.next} of ${this.height} rows received`);
    const analysis: GreyImage = this.resizer
      ? this.resizer.finish()
      : { width: this.width, height: this.height, data: this.whole! };
    return { analysis, blockiness: this.blockiness(), noise: noiseLevels(analysis) };
  }

  private blockiness(): number {
    if (!this.blocky) return 0;
    const w = this.width;
    let { sb, nb, sn, nn } = this;
    for (let y = 1; y < this.height; y++) {
      if ((y & 7) === 0) {
        sb += this.rowSums[y]!;
        nb += w;
      } else {
        sn += this.rowSums[y]!;
        nn += w;
      }
    }
    if (nb === 0 || nn === 0) return 0;
    const mb = sb / nb;
    const mn = sn / nn;
    return mb + mn > 1e-6 ? (mb - mn) / (mb + mn) : 0;
  }
}

/** The summary of a whole frame, shared by the runs that read it (imaging and aesthetic quality). */
export function nativeSummary(frame: Frame): NativeSummary {
  return derived(frame, 'native', () => {
    const a = new NativeAnalyzer(frame.width, frame.height, frame.channels);
    a.rows(frame.data, 0, frame.height);
    return a.finish();
  });
}
