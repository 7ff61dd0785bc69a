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
  maxDecodedPixels: 6e9,
  clipBudgetBaseSeconds: 60,
  clipBudgetSecondsPerClipSecond: 10,
});

export function resolveLimits(partial: Partial<EngineLimits> | undefined): EngineLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0))
      throw new RangeError(`limit ${key} must be a positive number`);
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

/**
 * Decoded work (width × height × frames) is what a clip costs to decode, whatever its byte size: a
 * few-KB GIF whose frames each change one pixel of an 8K canvas decodes 33 Mpixels per frame.
 */
export function checkDecodedWork(
  width: number,
  height: number,
  frameCount: number,
  limits: EngineLimits,
): void {
  const work = width * height * frameCount;
  if (work > limits.maxDecodedPixels) {
    throw new EngineError(
      'decoded_work_too_large',
      `decoding ${frameCount} frames of ${width}x${height} is ${(work / 1e9).toFixed(2)} Gpixels, over the limit of ${(limits.maxDecodedPixels / 1e9).toFixed(2)} Gpixels (width × height × frames); an operator can raise it with VESTA_ENGINE_MAX_DECODED_PIXELS`,
    );
  }
}

/** The wall-clock budget of one evaluation, in milliseconds: a base plus a share per second of clip. */
export function clipBudgetMs(durationSeconds: number, limits: EngineLimits): number {
  const seconds = Math.max(0, Number.isFinite(durationSeconds) ? durationSeconds : 0);
  return (limits.clipBudgetBaseSeconds + limits.clipBudgetSecondsPerClipSecond * seconds) * 1000;
}

export function checkFileSize(sizeBytes: number, limits: EngineLimits): void {
  if (sizeBytes === 0) throw new EngineError('empty_file', 'the file is empty (0 bytes)');
  if (sizeBytes > limits.maxFileBytes) {
    throw new EngineError(
      'file_too_large',
      `${sizeBytes} bytes exceed the limit of ${limits.maxFileBytes} bytes`,
    );
  }
}
