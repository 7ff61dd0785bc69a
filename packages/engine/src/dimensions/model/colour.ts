/**
 * Colour naming of a detected box (the colour test of the `detr` color method): every pixel of
 * the box's central half is put in one of VBench's colour words by HSV buckets, and the most
 * frequent word names the box.
 * - value V < 0.2 → black; saturation S < 0.15 → white (V > 0.8) or gray;
 * - else by hue: red (< 15° or ≥ 340°), orange (< 40°), yellow (< 70°), green (< 170°),
 *   blue (< 260°), purple (< 300°), pink (< 340°).
 */
import type { RgbImage } from '../../image/types.js';

export const COLOUR_WORDS = [
  'black',
  'white',
  'gray',
  'red',
  'orange',
  'yellow',
  'green',
  'blue',
  'purple',
  'pink',
] as const;
export type ColourWord = (typeof COLOUR_WORDS)[number];

/** The colour word of one RGB value (0..255). */
export function pixelColour(r: number, g: number, b: number): ColourWord {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const v = max / 255;
  const s = max > 0 ? (max - min) / max : 0;
  if (v < 0.2) return 'black';
  if (s < 0.15) return v > 0.8 ? 'white' : 'gray';
  const d = max - min;
  let h: number;
  if (max === r) h = (60 * ((g - b) / d) + 360) % 360;
  else if (max === g) h = 60 * ((b - r) / d) + 120;
  else h = 60 * ((r - g) / d) + 240;
  if (h < 15 || h >= 340) return 'red';
  if (h < 40) return 'orange';
  if (h < 70) return 'yellow';
  if (h < 170) return 'green';
  if (h < 260) return 'blue';
  if (h < 300) return 'purple';
  return 'pink';
}

/**
 * The dominant colour word inside a box given in source pixels (x0, y0, x1, y1); `scale` maps
 * source pixels onto `img` (a downscaled copy). Returns null for an empty box.
 */
export function colourName(
  img: RgbImage,
  box: readonly [number, number, number, number],
  scale: number,
): ColourWord | null {
  const [x0, y0, x1, y1] = box;
  const cx = ((x0 + x1) / 2) * scale;
  const cy = ((y0 + y1) / 2) * scale;
  const hw = ((x1 - x0) / 4) * scale;
  const hh = ((y1 - y0) / 4) * scale;
  const xa = Math.max(0, Math.floor(cx - hw));
  const xb = Math.min(img.width - 1, Math.ceil(cx + hw));
  const ya = Math.max(0, Math.floor(cy - hh));
  const yb = Math.min(img.height - 1, Math.ceil(cy + hh));
  const counts = new Map<ColourWord, number>();
  for (let y = ya; y <= yb; y++) {
    for (let x = xa; x <= xb; x++) {
      const o = (y * img.width + x) * 3;
      const c = pixelColour(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!);
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  let best: ColourWord | null = null;
  let n = 0;
  for (const [c, k] of counts) if (k > n) [best, n] = [c, k];
  return best;
}
