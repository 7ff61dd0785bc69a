/**
 * The seeded clips of `bench:compare` and `bench-run-read-side.ts`: prompts spread evenly over
 * every clip group (`groups` is passed in, so a script can use another tree's engine), `samples`
 * per prompt, scores that differ by prompt, sample and dimension; a run's `shift` moves every score.
 */
import type { SeedClip } from '../../packages/server/test/helpers/bench-seed.js';

export function suiteClips(
  groups: ReadonlyArray<{ id: string; dimensions: readonly string[] }>,
  shift: number,
  prompts = 200,
  samples = 5,
): SeedClip[] {
  const out: SeedClip[] = [];
  const perGroup = Math.ceil(prompts / groups.length);
  let made = 0;
  for (const group of groups)
    for (let p = 0; p < perGroup && made < prompts; p++, made++)
      for (let s = 0; s < samples; s++) {
        const scores: Record<string, number> = {};
        group.dimensions.forEach((d, k) => {
          scores[d] = 0.5 + shift + 0.1 * Math.sin(p * 1.7 + k) + 0.03 * Math.cos(p * 3.1 + s * 2.3 + k);
        });
        out.push({
          prompt: `${group.id}-${String(p + 1).padStart(2, '0')}`,
          group: group.id,
          sample: s,
          scores,
        });
      }
  return out;
}
