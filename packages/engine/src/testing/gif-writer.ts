/**
 * A byte-level GIF89a writer for tests: frames of palette indices, each with or without a Graphic
 * Control Extension (GCE), so tests can make the GIFs encoders differ on (no delays at all, a
 * delay of 0, mixed delays) without an encoder's defaults in the way. Image data is LZW-coded
 * without compression (a clear code before the code table would widen), which every decoder reads.
 */

export interface GifFrame {
  /** Palette indices, row-major, `width × height` of the frame's rectangle. */
  pixels: Uint8Array;
  /** The frame's rectangle on the logical screen (default: the whole screen). */
  left?: number;
  top?: number;
  width?: number;
  height?: number;
  /**
   * Delay in hundredths of a second, written in the frame's GCE; `null` writes no GCE at all (as
   * some encoders do: the delay is then unspecified).
   */
  delayCs: number | null;
}

export interface GifOptions {
  width: number;
  height: number;
  /** RGB triples; padded to a power of two, at most 256 colours. */
  palette: Array<[number, number, number]>;
  frames: GifFrame[];
  /** Write the NETSCAPE2.0 looping extension (default true). */
  loop?: boolean;
}

/** Bits per palette index: the smallest power of two holding the palette, at least 2 (GIF's minimum). */
function colourBits(colours: number): number {
  let bits = 1;
  while (1 << bits < colours) bits++;
  return Math.max(2, bits);
}

/**
 * LZW without compression: every index is emitted as a literal, with a clear code before the
 * decoder's table would grow past the current code width, so all codes stay `min + 1` bits wide.
 */
function lzw(indices: Uint8Array, min: number): number[] {
  const clear = 1 << min;
  const end = clear + 1;
  const width = min + 1;
  // After a clear, the decoder adds one entry per code from the second on; it widens the codes
  // once the next entry would be 2^width.
  const perClear = (1 << width) - (clear + 2) - 1;
  const bytes: number[] = [];
  let acc = 0;
  let n = 0;
  const put = (code: number): void => {
    acc |= code << n;
    n += width;
    while (n >= 8) {
      bytes.push(acc & 0xff);
      acc >>>= 8;
      n -= 8;
    }
  };
  for (let i = 0; i < indices.length; i++) {
    if (i % perClear === 0) put(clear);
    put(indices[i]!);
  }
  put(end);
  if (n > 0) bytes.push(acc & 0xff);
  // Sub-blocks of at most 255 bytes, then the terminator.
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 255) {
    const block = bytes.slice(i, i + 255);
    out.push(block.length, ...block);
  }
  out.push(0);
  return out;
}

/** The GIF's bytes. */
export function gifBytes(options: GifOptions): Buffer {
  const { width, height, frames } = options;
  const bits = colourBits(options.palette.length);
  if (options.palette.length > 256) throw new RangeError('a GIF palette holds at most 256 colours');
  const out: number[] = [];
  const u16 = (v: number): void => {
    out.push(v & 0xff, (v >> 8) & 0xff);
  };
  out.push(...Buffer.from('GIF89a', 'latin1'));
  u16(width);
  u16(height);
  // Global colour table present, its size; colour resolution = that size; background index 0.
  out.push(0x80 | ((bits - 1) << 4) | (bits - 1), 0, 0);
  for (let i = 0; i < 1 << bits; i++) out.push(...(options.palette[i] ?? [0, 0, 0]));
  if (options.loop ?? true)
    out.push(0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, 0x00, 0x00, 0x00);
  for (const f of frames) {
    const fw = f.width ?? width;
    const fh = f.height ?? height;
    if (f.pixels.length !== fw * fh) throw new RangeError('a frame needs width × height indices');
    if (f.delayCs !== null) {
      // Graphic control: disposal "do not dispose", the delay, no transparency.
      out.push(0x21, 0xf9, 0x04, 0x04);
      u16(f.delayCs);
      out.push(0x00, 0x00);
    }
    out.push(0x2c);
    u16(f.left ?? 0);
    u16(f.top ?? 0);
    u16(fw);
    u16(fh);
    out.push(0x00, bits, ...lzw(f.pixels, bits));
  }
  out.push(0x3b);
  return Buffer.from(out);
}
