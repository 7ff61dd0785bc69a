/**
 * A hostile GIF for budget tests and benchmarks: a large logical screen (7680×4320 by default, the
 * decoder's size limit) and many frames, each a 1×1 sub-image that changes one pixel. The file is a
 * few KB and passes every per-dimension limit (bytes, width, height, frames, duration), yet a
 * decoder composes the whole canvas for every frame: 240 × 33 Mpixels of decoded work.
 */

export interface HostileGifOptions {
  width?: number;
  height?: number;
  frames?: number;
  /** Frame delay in hundredths of a second (default 4: 25 fps). */
  delayCs?: number;
}

/** The GIF's bytes (GIF89a, global 2-colour palette, LZW minimum code size 2). */
export function hostileGif(options: HostileGifOptions = {}): Buffer {
  const width = options.width ?? 7680;
  const height = options.height ?? 4320;
  const frames = options.frames ?? 240;
  const delay = options.delayCs ?? 4;
  const out: number[] = [];
  const u16 = (n: number): void => {
    out.push(n & 0xff, (n >> 8) & 0xff);
  };
  out.push(...Buffer.from('GIF89a', 'latin1'));
  u16(width);
  u16(height);
  // Global colour table present, 1 bit of colour resolution, 2 entries; background index 0.
  out.push(0x80, 0, 0);
  out.push(0, 0, 0, 255, 255, 255);
  // Netscape looping extension (once), as encoders write it.
  out.push(0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, 0x00, 0x00, 0x00);
  for (let i = 0; i < frames; i++) {
    // Graphic control: no disposal (the canvas is kept), the delay, no transparency.
    out.push(0x21, 0xf9, 0x04, 0x04);
    u16(delay);
    out.push(0x00, 0x00);
    // Image descriptor: one pixel at a position that moves along the canvas.
    out.push(0x2c);
    u16((i * 31) % width);
    u16((i * 17) % height);
    u16(1);
    u16(1);
    out.push(0x00);
    // LZW data, minimum code size 2: clear (4), the pixel (colour 1 on odd frames), end (5); 3-bit codes.
    const pixel = i % 2 === 0 ? 1 : 0;
    const bits = 4 | (pixel << 3) | (5 << 6);
    out.push(0x02, 0x02, bits & 0xff, (bits >> 8) & 0xff, 0x00);
  }
  out.push(0x3b);
  return Buffer.from(out);
}
