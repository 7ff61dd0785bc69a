/**
 * A GIF's frame timing, read from its blocks (one pass over the file, no decoding): how many
 * images it holds and how long each is shown. A frame's delay lives in the Graphic Control
 * Extension (GCE) before its image, in hundredths of a second; many encoders write none, or a
 * delay of 0 or 1. Browsers show such frames for 10 cs (a delay under 2 cs reads as 10 cs, the
 * rule of Chromium, Firefox and Safari), which is how the clip was meant to be seen; FFmpeg's
 * demuxer reads a missing GCE as a 1 cs frame (100 fps) and keeps a delay of 1.
 */
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** Delays shorter than this (in cs), or missing, are shown for `ASSUMED_DELAY_CS`. */
export const MIN_GIF_DELAY_CS = 2;
/** What browsers show a frame with no usable delay for: 10 cs (10 frames per second). */
export const ASSUMED_DELAY_CS = 10;

export interface GifTiming {
  /** Images in the file. */
  frames: number;
  /** Sum of the frames' display times, in cs, after the browsers' rule. */
  totalCs: number;
  /** Frames whose delay was missing or under 2 cs, and so assumed to be 10 cs. */
  assumedFrames: number;
}

/** The display time a browser gives a frame whose GCE states `delayCs` (null: no GCE). */
export function effectiveDelayCs(delayCs: number | null): number {
  return delayCs === null || delayCs < MIN_GIF_DELAY_CS ? ASSUMED_DELAY_CS : delayCs;
}

/** Sequential reads through a window of the file. */
class BlockReader {
  private readonly buf = Buffer.alloc(1 << 16);
  /** File offset of buf[0], bytes held, and the read position (a file offset). */
  private start = 0;
  private held = 0;
  pos = 0;
  constructor(private readonly fh: FileHandle) {}

  /** True when `n` bytes from the read position are in the window (refilling it when needed). */
  async need(n: number): Promise<boolean> {
    if (this.pos + n <= this.start + this.held) return true;
    const { bytesRead } = await this.fh.read(this.buf, 0, this.buf.length, this.pos);
    this.start = this.pos;
    this.held = bytesRead;
    return n <= bytesRead;
  }

  u8(): number {
    return this.buf[this.pos++ - this.start]!;
  }

  u16(): number {
    const v = this.buf.readUInt16LE(this.pos - this.start);
    this.pos += 2;
    return v;
  }

  /** Skips a chain of data sub-blocks (length byte, data) up to its zero terminator. */
  async skipSubBlocks(): Promise<boolean> {
    for (;;) {
      if (!(await this.need(1))) return false;
      const size = this.u8();
      if (size === 0) return true;
      this.pos += size;
    }
  }
}

/**
 * The timing of the GIF at `path`. A file cut off or malformed part-way gives the timing of the
 * frames before the damage (the decoder decides what the file is; this only reads delays).
 */
export async function readGifTiming(path: string): Promise<GifTiming> {
  const out: GifTiming = { frames: 0, totalCs: 0, assumedFrames: 0 };
  const fh = await open(path, 'r');
  try {
    const r = new BlockReader(fh);
    if (!(await r.need(13))) return out;
    r.pos = 10; // signature and version, logical screen size
    const screen = r.u8();
    r.pos = 13;
    if (screen & 0x80) r.pos += 3 << ((screen & 7) + 1);
    let delay: number | null = null;
    for (;;) {
      if (!(await r.need(1))) return out;
      const block = r.u8();
      if (block === 0x21) {
        if (!(await r.need(1))) return out;
        const label = r.u8();
        if (label === 0xf9) {
          if (!(await r.need(4))) return out;
          const size = r.u8();
          const at = r.pos;
          if (size >= 3) {
            r.pos += 1; // packed fields
            delay = r.u16();
          }
          r.pos = at + size;
        }
        if (!(await r.skipSubBlocks())) return out;
      } else if (block === 0x2c) {
        if (!(await r.need(9))) return out;
        r.pos += 8; // position and size
        const packed = r.u8();
        if (packed & 0x80) r.pos += 3 << ((packed & 7) + 1);
        r.pos += 1; // LZW minimum code size
        if (!(await r.skipSubBlocks())) return out;
        // A GCE applies to the one image that follows it.
        out.frames++;
        out.totalCs += effectiveDelayCs(delay);
        if (delay === null || delay < MIN_GIF_DELAY_CS) out.assumedFrames++;
        delay = null;
      } else {
        return out; // the trailer (0x3b), or bytes that are not a block
      }
    }
  } finally {
    await fh.close();
  }
}
