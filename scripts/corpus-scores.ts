/**
 * `npx tsx scripts/corpus-scores.ts [--write]`: the seven quality dimensions on every corpus clip,
 * engine from source (this tree), two worker threads.
 *
 * Without `--write`, compares with the kept values (`packages/engine/test/fixtures/
 * corpus-quality-scores.json`, what `corpus-quality.test.ts` checks) and prints the largest
 * difference per dimension; exits 1 when any value moved by more than 1e-6 or a method version,
 * frame count or outcome changed. `--write` replaces the kept values (after a method's version
 * changes on purpose).
 */
import { writeFileSync } from 'node:fs';
import { createEngine } from '../packages/engine/src/index.js';
import {
  compareScores,
  largestDifferences,
  readKeptScores,
  SCORES_FIXTURE,
  scoreCorpus,
} from '../packages/engine/test/helpers/corpus-scores.js';

const engine = createEngine({ threads: 2 });
try {
  const t0 = performance.now();
  const now = await scoreCorpus(engine);
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  if (process.argv.includes('--write')) {
    writeFileSync(SCORES_FIXTURE, `${JSON.stringify(now, null, 2)}\n`);
    process.stdout.write(`wrote ${SCORES_FIXTURE} (${Object.keys(now).length} clips, ${seconds} s)\n`);
  } else {
    const kept = readKeptScores();
    const problems = compareScores(kept, now);
    for (const [d, diff] of Object.entries(largestDifferences(kept, now)))
      process.stdout.write(`${d.padEnd(24)} largest |difference| ${diff.toExponential(2)}\n`);
    process.stdout.write(`${problems.length === 0 ? 'same scores' : problems.join('\n')} (${seconds} s)\n`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  }
} finally {
  await engine.close();
}
