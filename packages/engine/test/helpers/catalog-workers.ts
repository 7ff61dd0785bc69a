/**
 * What a test needs to run the engine's worker pool on the test catalog (`test-catalog.ts`):
 * the catalog's URL, tsx's loader for the workers (they import TypeScript), and the probe of a
 * 32×32, 10 fps synthetic clip of `frameCount` frames.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const TEST_CATALOG_URL = new URL('./test-catalog.ts', import.meta.url).href;

export const TSX_LOADER_URL = pathToFileURL(
  createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/index\.cjs$/, 'index.mjs'),
).href;

export function smallClipProbe(frameCount: number): never {
  return {
    width: 32,
    height: 32,
    displayWidth: 32,
    displayHeight: 32,
    fps: 10,
    frameCount,
    durationSeconds: frameCount / 10,
    codec: 'h264',
  } as never;
}
