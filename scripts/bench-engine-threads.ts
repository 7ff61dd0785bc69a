/**
 * `npx tsx scripts/bench-engine-threads.ts [engine-dir] [rounds]`: section 1 of `npm run bench:engine`
 * (all seven model-free dimensions of the 5 s 1280x720 clip, 2 worker threads) split by thread:
 * the CPU of every thread of this process and of the reaped FFmpeg children around each
 * evaluation, a decode alone (the frames the plan asks for, dropped) before each one as in the
 * bench, medians. Threads are named by their Linux name and id; the engine's two worker threads
 * are the two largest `node` threads after the main one.
 *
 * `engine-dir` is another revision's engine source in an ignored folder (default: this tree's), e.g.
 *   mkdir -p tmp/engine-base && git archive main packages/engine/src | tar -x -C tmp/engine-base
 *   npx tsx scripts/bench-engine-threads.ts tmp/engine-base 7
 * With `--built`, the engine runs built (`dist`): `engine-dir` is then a checkout whose engine is
 * built (`.` for this tree, after `npm run build`). Linux only (/proc).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as TREE from '../packages/engine/src/index.js';
import {
  decodeAlone,
  median,
  MODEL_FREE_DIMENSIONS as dims,
  synthBenchClip,
} from './bench-support/engine-bench.js';

type Engine = typeof TREE;

const args = process.argv.slice(2).filter((a) => a !== '--built');
const dir = args[0];
const rounds = Number(args[1] ?? 7);
const entry = process.argv.includes('--built')
  ? 'packages/engine/dist/index.js'
  : 'packages/engine/src/index.ts';
const lib = dir ? ((await import(pathToFileURL(path.resolve(dir, entry)).href)) as Engine) : TREE;

/** CPU ms of each live thread of this process, by "name#tid". */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${name}#${tid}`, ((Number(f[11]) + Number(f[12])) * 1000) / 100);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** CPU ms of the reaped children (FFmpeg). */
function childrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[13]) + Number(f[14])) * 1000) / 100;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-threads-'));
const clip = path.join(tmp, '5s.mp4');
const engine = lib.createEngine({ threads: 2 });
try {
  synthBenchClip(lib.defaultFfmpegPath(), clip, 5);
  await engine.evaluate(clip, { dimensions: [...dims] }); // warm-up (starts the workers)
  const perThread = new Map<string, number[]>();
  const add = (key: string, ms: number): void => {
    const list = perThread.get(key) ?? [];
    list.push(ms);
    perThread.set(key, list);
  };
  const loads = [os.loadavg()[0]!];
  for (let r = 0; r < rounds; r++) {
    await decodeAlone(lib, clip, dims);
    const before = threadCpu();
    const children = childrenCpu();
    const result = await engine.evaluate(clip, { dimensions: [...dims] });
    if (result.failures.length > 0) throw new Error(JSON.stringify(result.failures));
    for (const [key, ms] of threadCpu()) add(key, ms - (before.get(key) ?? 0));
    add('FFmpeg (children)', childrenCpu() - children);
    loads.push(os.loadavg()[0]!);
  }
  const rows = [...perThread]
    .map(([key, xs]) => ({ key, ms: median(xs) }))
    .filter((row) => row.ms > 0)
    .sort((a, b) => b.ms - a.ms);
  const lines = [
    `Engine: ${dir ?? 'this tree'}; CPU per evaluation, medians of ${rounds}.`,
    '| thread | CPU |',
    '|---|---|',
    ...rows.map((row) => `| ${row.key} | ${row.ms.toFixed(0)} ms |`),
    `| all (sum of medians) | ${rows.reduce((s, row) => s + row.ms, 0).toFixed(0)} ms |`,
    '',
    `1-minute load average after each round: ${loads.map((l) => l.toFixed(1)).join(', ')}.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await engine.close();
  rmSync(tmp, { recursive: true, force: true });
}
