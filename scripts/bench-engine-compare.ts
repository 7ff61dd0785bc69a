/**
 * `npx tsx scripts/bench-engine-compare.ts <base-dir> [rounds]`: section 1 of `npm run bench:engine`
 * (decode alone vs. scoring all seven model-free dimensions, 5 s 1280x720 clip, 2 worker threads)
 * for another revision's engine and this tree's, side by side in one process, rounds interleaved
 * (the order alternates), medians. Both engines run from source.
 *
 * The other revision's engine source goes into an ignored folder of this tree first, e.g.
 *   mkdir -p tmp/engine-base && git archive main packages/engine/src | tar -x -C tmp/engine-base
 *   npx tsx scripts/bench-engine-compare.ts tmp/engine-base 5
 * CPU is from /proc/self/stat (all threads plus reaped FFmpeg children; Linux).
 *
 * With `--built`, both engines run built (`dist`, as `npm run bench:engine` runs this tree's):
 * `<base-dir>` is then a checkout of the other revision with its engine built, e.g.
 *   git worktree add --detach ../engine-base main && (cd ../engine-base && npm ci && npx tsc -b packages/engine)
 *   npm run build && npx tsx scripts/bench-engine-compare.ts ../engine-base 9 --built
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as TREE from '../packages/engine/src/index.js';
import {
  decodeAlone,
  median,
  MODEL_FREE_DIMENSIONS as dims,
  processCpuMs as cpuMs,
  synthBenchClip,
} from './bench-support/engine-bench.js';

type Engine = typeof TREE;

const baseDir = process.argv[2];
if (!baseDir) {
  process.stderr.write('usage: npx tsx scripts/bench-engine-compare.ts <base-dir> [rounds]\n');
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 5);
const built = process.argv.includes('--built');
const entry = built ? 'packages/engine/dist/index.js' : 'packages/engine/src/index.ts';
const BASE = (await import(pathToFileURL(path.resolve(baseDir, entry)).href)) as Engine;
const THIS = built ? ((await import('../packages/engine/dist/index.js')) as unknown as Engine) : TREE;

const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-compare-'));
const clip = path.join(dir, '5s.mp4');
try {
  synthBenchClip(TREE.defaultFfmpegPath(), clip, 5);
  const sides = [
    { name: `base (${baseDir})`, lib: BASE, engine: BASE.createEngine({ threads: 2 }) },
    { name: 'this tree', lib: THIS, engine: THIS.createEngine({ threads: 2 }) },
  ].map((s) => ({ ...s, dw: [] as number[], dc: [] as number[], sw: [] as number[], sc: [] as number[] }));
  const loads = [os.loadavg()[0]!];
  try {
    for (const s of sides) await s.engine.evaluate(clip, { dimensions: [...dims] }); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
        let c = cpuMs();
        let t = performance.now();
        await decodeAlone(s.lib, clip, dims);
        s.dw.push(performance.now() - t);
        s.dc.push(cpuMs() - c);
        c = cpuMs();
        t = performance.now();
        const result = await s.engine.evaluate(clip, { dimensions: [...dims] });
        s.sw.push(performance.now() - t);
        s.sc.push(cpuMs() - c);
        if (result.failures.length > 0) throw new Error(JSON.stringify(result.failures));
      }
      loads.push(os.loadavg()[0]!);
    }
  } finally {
    for (const s of sides) await s.engine.close();
  }
  const lines = [
    '| engine | decode alone (wall / CPU) | score all 7 (wall / CPU) | ratio wall | ratio CPU |',
    '|---|---|---|---|---|',
    ...sides.map((s) => {
      const [dw, dc, sw, sc] = [median(s.dw), median(s.dc), median(s.sw), median(s.sc)];
      return `| ${s.name} | ${dw.toFixed(0)} / ${dc.toFixed(0)} ms | ${sw.toFixed(0)} / ${sc.toFixed(0)} ms | ${(sw / dw).toFixed(2)}× | ${(sc / dc).toFixed(2)}× |`;
    }),
    '',
    `Medians of ${rounds} interleaved rounds; 1-minute load average after each round: ${loads.map((l) => l.toFixed(1)).join(', ')}.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
