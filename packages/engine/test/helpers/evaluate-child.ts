/**
 * Child process for the peak-memory test: evaluates one clip on every model-free dimension with
 * two worker threads (one scoring slot) and prints the result as one JSON line.
 * Usage: node --import tsx evaluate-child.ts <clip>
 */
import { createEngine } from '../../src/engine.js';
import { QUALITY } from './corpus-scores.js';

const clip = process.argv[2]!;
const engine = createEngine({ threads: 2 });
try {
  const r = await engine.evaluate(clip, { dimensions: QUALITY });
  process.stdout.write(
    `${JSON.stringify({ scores: r.scores.map((s) => [s.dimension, s.value]), failures: r.failures })}\n`,
  );
} finally {
  await engine.close();
}
