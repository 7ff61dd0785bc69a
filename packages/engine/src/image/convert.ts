/** Colour conversions from decoded frames. */
import type { Frame } from '../contract.js';
import type { GreyImage, RgbImage } from './types.js';

/** BT.601 luma of an RGB24 frame (or the grey frame itself) as floats 0..255. */
export function frameToGrey(frame: Frame, out?: GreyImage): GreyImage {
  const { width, height, data } = frame;
  const n = width * height;
  const img =
    out && out.width === width && out.height === height ? out : { width, height, data: new Float32Array(n) };
  const g = img.data;
  if (frame.channels === 1) {
    for (let i = 0; i < n; i++) g[i] = data[i]!;
  } else {
    for (let i = 0, j = 0; i < n; i++, j += 3) {
      g[i] = 0.299 * data[j]! + 0.587 * data[j + 1]! + 0.114 * data[j + 2]!;
    }
  }
  return img;
}

/** An RGB24 frame as floats (grey frames are replicated into three channels). */
export function frameToRgb(frame: Frame): RgbImage {
  const { width, height, data } = frame;
  const n = width * height;
  const out = new Float32Array(n * 3);
  if (frame.channels === 3) {
    for (let i = 0; i < n * 3; i++) out[i] = data[i]!;
  } else {
    for (let i = 0, j = 0; i < n; i++, j += 3) {
      const v = data[i]!;
      out[j] = v;
      out[j + 1] = v;
      out[j + 2] = v;
    }
  }
  return { width, height, data: out };
}

/** Luma of a float RGB image. */
export function rgbToGrey(img: RgbImage): GreyImage {
  const n = img.width * img.height;
  const g = new Float32Array(n);
  const d = img.data;
  for (let i = 0, j = 0; i < n; i++, j += 3) g[i] = 0.299 * d[j]! + 0.587 * d[j + 1]! + 0.114 * d[j + 2]!;
  return { width: img.width, height: img.height, data: g };
}
