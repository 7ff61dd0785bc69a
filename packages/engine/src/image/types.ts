/** A single-channel float image, row-major, values on the 0..255 scale. */
export interface GreyImage {
  width: number;
  height: number;
  data: Float32Array;
}

/** A packed RGB float image (3 values per pixel), row-major, 0..255. */
export interface RgbImage {
  width: number;
  height: number;
  data: Float32Array;
}

export function greyImage(width: number, height: number): GreyImage {
  return { width, height, data: new Float32Array(width * height) };
}
