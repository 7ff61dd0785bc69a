/** Paths of the FFmpeg binaries shipped through npm (no system packages needed). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function defaultFfmpegPath(): string {
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

export function defaultFfprobePath(): string {
  return (require('@ffprobe-installer/ffprobe') as { path: string }).path;
}
