/**
 * Seeded pseudo-random numbers for resampling. Every stream is named by strings (a run id, a
 * clip group, a purpose): the same names give the same numbers on every machine and every call,
 * so an interval or a p-value is a function of its data and its names alone.
 *
 * The generator is pure-rand's xoroshiro128+ (a published algorithm, so its stream is fixed by its
 * definition, not by a library version); its 128-bit state is the first 16 bytes of
 * SHA-256(names joined by U+0000). Streams are named per stratum, so adding a clip group to a run
 * does not change the numbers another group's resample draws.
 */
import { createHash } from 'node:crypto';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export type { RandomGenerator };

/** A generator seeded from `names` (order matters). */
export function seededRandom(...names: readonly string[]): RandomGenerator {
  const digest = createHash('sha256').update(names.join('\u0000')).digest();
  const state = [0, 1, 2, 3].map((i) => digest.readInt32BE(i * 4));
  // xoroshiro128+ must not start from the all-zero state (it would stay there).
  if (!state.some((word) => word !== 0)) state[0] = 1;
  return xoroshiro128plusFromState(state);
}

const TWO_32 = 2 ** 32;
const INVERSE_TWO_32 = 2 ** -32;

/**
 * A uniform integer in [0, n), 1 ≤ n ≤ 2²¹, without bias: Lemire's multiply-and-reject on one
 * 32-bit draw (x·n < 2⁵³, so the product is exact in a double). The resampling loops call this
 * millions of times, where pure-rand's general `uniformInt` (any range) costs several times more.
 */
export function randomBelow(random: RandomGenerator, n: number): number {
  for (;;) {
    const product = (random.next() >>> 0) * n;
    // × 2⁻³² is ÷ 2³² exactly (a power of two), and cheaper.
    const high = Math.floor(product * INVERSE_TWO_32);
    const low = product - high * TWO_32;
    if (low >= n || low >= (TWO_32 - n) % n) return high;
  }
}
