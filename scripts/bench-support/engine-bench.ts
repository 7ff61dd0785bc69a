/**
 * What the engine benchmarks share (`bench-engine.ts`, `bench-engine-compare.ts`,
 * `bench-engine-threads.ts`): the bench clip, the decode-alone leg, process CPU and medians.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type * as EngineModule from '../../packages/engine/src/index.js';
import { DIMENSION_IDS, categoryOf } from '../../packages/engine/src/index.js';
import type { DimensionId } from '../../packages/engine/src/index.js';

/** The parts of an engine build (this tree's or another revision's) the decode-alone leg uses. */
export type EngineLib = Pick<
  typeof EngineModule,
  | 'createDecoder'
  | 'defaultFfmpegPath'
  | 'defaultFfprobePath'
  | 'resolveLimits'
  | 'planEvaluation'
  | 'getDimension'
  | 'getMethod'
>;

/**
 * The seven dimensions with a model-free default method (section 1 of `npm run bench:engine`):
 * VBench's quality category, as the engine's registry names it.
 */
export const MODEL_FREE_DIMENSIONS: DimensionId[] = DIMENSION_IDS.filter(
  (id) => categoryOf(id) === 'quality',
);

/**
 * CPU milliseconds used so far by this process (all its threads) plus its reaped children
 * (FFmpeg, ffprobe), from /proc/self/stat (utime, stime, cutime, cstime; Linux).
 */
export function processCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks * 1000) / 100;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The bench clip: a moving test pattern with temporal noise (so the encoder and the methods see
 * real texture and motion), 1280x720 at 30 fps, H.264 CRF 23.
 */
export function synthBenchClip(ffmpegPath: string, file: string, seconds: number): void {
  execFileSync(ffmpegPath, [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi'],
    ...['-i', 'testsrc2=size=1280x720:rate=30,noise=alls=8:allf=t', '-t', String(seconds)],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', file],
  ]);
}

/**
 * Streams the frames the plan for `dimensions` asks for and drops them: the decode share of an
 * evaluation. Returns its wall time and the frames decoded (bands of one frame count once).
 */
export async function decodeAlone(
  lib: EngineLib,
  file: string,
  dimensions: DimensionId[],
): Promise<{ ms: number; frames: number }> {
  const decoder = lib.createDecoder({
    ffmpegPath: lib.defaultFfmpegPath(),
    ffprobePath: lib.defaultFfprobePath(),
    limits: lib.resolveLimits({}),
  });
  const t0 = performance.now();
  const probe = await decoder.probe(file);
  const plan = lib.planEvaluation(
    probe,
    { dimensions },
    { getDimension: lib.getDimension, getMethod: lib.getMethod, listDimensions: () => [] },
    {},
  );
  let frames = 0;
  for await (const g of decoder.frames(file, probe, plan.outputs))
    frames += g.frames.filter((f) => !f.band || f.band.last).length;
  return { ms: performance.now() - t0, frames };
}
