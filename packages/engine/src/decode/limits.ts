/** Resource limits, checked from the probe before any frame is decoded. */
import { EngineError } from '../contract.js';
import type { EngineLimits, VideoProbe } from '../contract.js';

export const DEFAULT_LIMITS: Readonly<EngineLimits> = Object.freeze({
  maxWidth: 7680,
  maxHeight: 4320,
  maxPixels: 7680 * 4320,
  maxDurationSeconds: 600,
  maxFrames: 20_000,
  maxFileBytes: 2 * 1024 ** 3,
});

export function resolveLimits(partial: Partial<EngineLimits> | undefined): EngineLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0)) throw new RangeError(`limit ${key} must be a positive number`);
  }
  return limits;
}

/**
 * Size limits are orientation-free: the long side is checked against max(maxWidth, maxHeight) and
 * the short side against the min, so a portrait clip is held to the same bound as its landscape twin.
 */
export function checkSizeLimits(width: number, height: number, limits: EngineLimits): void {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (
    long > Math.max(limits.maxWidth, limits.maxHeight) ||
    short > Math.min(limits.maxWidth, limits.maxHeight) ||
    width * height > limits.maxPixels
  ) {
    throw new EngineError(
      'resolution_too_large',
      `${width}x${height} exceeds the limit of ${limits.maxWidth}x${limits.maxHeight} (${limits.maxPixels} pixels)`,
    );
  }
}

export function checkDurationLimit(probe: Pick<VideoProbe, 'durationSeconds'>, limits: EngineLimits): void {
  if (probe.durationSeconds > limits.maxDurationSeconds) {
    throw new EngineError(
      'duration_too_long',
      `duration ${probe.durationSeconds.toFixed(2)} s exceeds the limit of ${limits.maxDurationSeconds} s`,
    );
  }
}

export function checkFrameLimit(frameCount: number, limits: EngineLimits): void {
  if (frameCount > limits.maxFrames) {
    throw new EngineError('too_many_frames', `${frameCount} frames exceed the limit of ${limits.maxFrames}`);
  }
}

export function checkFileSize(sizeBytes: number, limits: EngineLimits): void {
  if (sizeBytes === 0) throw new EngineError('empty_file', 'the file is empty (0 bytes)');
  if (sizeBytes > limits.maxFileBytes) {
    throw new EngineError('file_too_large', `${sizeBytes} bytes exceed the limit of ${limits.maxFileBytes} bytes`);
  }
}
