/** Output frame size for a `maxSide` downscale (never upscales). */
export function outputSize(
  width: number,
  height: number,
  maxSide: number | null,
): { width: number; height: number } {
  const long = Math.max(width, height);
  if (maxSide === null || long <= maxSide) return { width, height };
  const scale = maxSide / long;
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}
