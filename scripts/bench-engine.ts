/**
 * `npm run bench:engine`: the engine's decode and scoring costs, side by side in one run.
 *
 * 1. Decode alone vs. score: on a synthetic 5 s 1280x720 H.264 clip, stream exactly the frames the
 *    model-free methods ask for (same samplings, sizes, channels; one FFmpeg process) and drop
 *    them; then run `engine.evaluate` on every dimension that has a model-free method.
 *    Interleaved rounds, medians. Target: scoring ≤ 1.5× decode alone, wall and CPU (issue #24).
 * 2. Peak RSS of a child process that evaluates a 10 s and a 60 s clip (same content and size),
 *    from `process.resourceUsage().maxRSS` (main thread + workers; FFmpeg's own process excluded).
 *    Target: 60 s within 20 % of 10 s (frames stream; nothing grows with clip length).
 * 3. Frames per second per dimension: each dimension alone on the 5 s clip; method time is the wall
 *    time the worker spent in the method; CPU columns (process threads + FFmpeg, from /proc) are
 *    the robust figures on a shared machine.
 *
 * 4. One scoring slot's budgets: the 5.5 KB GIF of 240 frames at 7680x4320 (each frame changes one
 *    pixel) is refused at probe by the decoded-work limit (time to refusal); with that limit lifted
 *    and a 20 s wall-clock budget, when it is stopped and its peak RSS; a 4K (3840x2160, 30 fps)
 *    H.264 clip and a 12-frame 7680x4320 H.264 clip (the size limit) scored with the defaults.
 *    Peak RSS here is Node + FFmpeg together, sampled every 50 ms from /proc over the child process
 *    and its FFmpeg; target ≤ 1 GiB. `--budgets` runs this section alone.
 *
 * `--ratio` runs section 1 alone; `--rounds N` sets its rounds (default 5: the ratio moves by
 * ±0.05 or more from run to run on a shared 2-core machine, so more rounds steady it).
 *
 * Needs a build (`npm run build`). Prints Markdown for docs/benchmarks.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as engineLib from '@vesta/engine';
import { createEngine, defaultFfmpegPath, EngineError } from '@vesta/engine';
import type { DimensionId, EngineLimits } from '@vesta/engine';
import { hostileGif } from '@vesta/engine/testing';
import {
  decodeAlone as decodeFramesAlone,
  type EngineLib,
  median,
  processCpuMs as cpuMs,
  synthBenchClip,
} from './bench-support/engine-bench.js';
import { readdirSync, writeFileSync } from 'node:fs';

const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Math.max(1, Number(process.argv[roundsAt + 1]) || 5) : 5;

async function modelFreeDimensions(): Promise<DimensionId[]> {
  const engine = createEngine({ threads: 1 });
  try {
    return engine
      .dimensions()
      .filter((d) => {
        const m = d.methods.find((x) => x.id === d.defaultMethod);
        return (
          m?.available === true &&
          m.requires.models.length === 0 &&
          m.requires.auxiliary.length === 0 &&
          !m.requires.prompt
        );
      })
      .map((d) => d.id);
  } finally {
    await engine.close();
  }
}

/** The decode share of an evaluation (this build's engine). */
const decodeAlone = (file: string, dimensions: DimensionId[]): Promise<{ ms: number; frames: number }> =>
  // The built engine's types differ from the source's only in their classes' private fields.
  decodeFramesAlone(engineLib as unknown as EngineLib, file, dimensions);

async function childRss(file: string): Promise<number> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, '--rss-child', file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let s = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (s += d));
    child.on('close', (code) => (code === 0 ? resolve(s) : reject(new Error(`rss child exited ${code}`))));
  });
  return Number(JSON.parse(out.trim().split('\n').pop()!).maxRssKb);
}

async function rssChild(file: string): Promise<void> {
  const dims = await modelFreeDimensions();
  const engine = createEngine({ threads: 2 });
  try {
    const r = await engine.evaluate(file, { dimensions: dims });
    if (r.failures.length > 0) throw new Error(JSON.stringify(r.failures));
  } finally {
    await engine.close();
  }
  process.stdout.write(`${JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS })}\n`);
}

/** Resident set of a process and its direct children (FFmpeg), in KiB, from /proc. */
function treeRssKb(pid: number): number {
  const rss = (p: string): number => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  };
  let total = rss(String(pid));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === pid) total += rss(entry);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface BudgetRun {
  outcome: string;
  seconds: number;
  peakTreeMb: number;
}

/** Evaluates `file` in a child (`--budget-child`), sampling the RSS of the child + FFmpeg. */
async function budgetRun(file: string, limits: Partial<EngineLimits>): Promise<BudgetRun> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, process.argv[1]!, '--budget-child', file, JSON.stringify(limits)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treeRssKb(child.pid!))), 50);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise<void>((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`budget child exited ${code}`)))),
  );
  clearInterval(timer);
  const r = JSON.parse(out.trim().split('\n').pop()!) as { outcome: string; seconds: number };
  return { ...r, peakTreeMb: peak / 1024 };
}

async function budgetChild(file: string, limits: Partial<EngineLimits>): Promise<void> {
  const dims = await modelFreeDimensions();
  const engine = createEngine({ threads: 2, limits });
  const t0 = performance.now();
  let outcome: string;
  try {
    const r = await engine.evaluate(file, { dimensions: dims });
    outcome = `scored ${r.scores.length} dimensions`;
  } catch (e) {
    outcome = e instanceof EngineError ? e.code : String(e);
  } finally {
    await engine.close();
  }
  process.stdout.write(`${JSON.stringify({ outcome, seconds: (performance.now() - t0) / 1000 })}\n`);
}

/** Section 4: the hostile GIF and a 4K clip against one scoring slot's budgets. */
async function budgets(dir: string): Promise<string[]> {
  const gif = path.join(dir, 'hostile.gif');
  writeFileSync(gif, hostileGif());
  const engine = createEngine({ threads: 1 });
  const t0 = performance.now();
  const refused = await engine.probe(gif).then(
    () => 'probed (not refused)',
    (e: unknown) => (e instanceof EngineError ? e.code : String(e)),
  );
  const refusedMs = performance.now() - t0;
  await engine.close();
  const lifted = await budgetRun(gif, {
    maxDecodedPixels: 1e12,
    clipBudgetBaseSeconds: 20,
    clipBudgetSecondsPerClipSecond: 0.001,
  });
  const k4 = path.join(dir, '4k.mp4');
  execFileSync(defaultFfmpegPath(), [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=3840x2160:rate=30',
    '-t',
    '4',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '28',
    '-pix_fmt',
    'yuv420p',
    k4,
  ]);
  const fourK = await budgetRun(k4, {});
  const k8 = path.join(dir, '8k.mp4');
  execFileSync(defaultFfmpegPath(), [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=7680x4320:rate=30',
    '-frames:v',
    '12',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '28',
    '-pix_fmt',
    'yuv420p',
    k8,
  ]);
  const eightK = await budgetRun(k8, {});
  return [
    '| one scoring slot (threads 2) | outcome | wall | peak RSS, Node + FFmpeg |',
    '|---|---|---|---|',
    `| 5.5 KB GIF, 240 frames at 7680x4320, default limits | ${refused} at probe | ${refusedMs.toFixed(0)} ms | — |`,
    `| same GIF, decoded-work limit lifted, 20 s budget | ${lifted.outcome} | ${lifted.seconds.toFixed(1)} s | ${lifted.peakTreeMb.toFixed(0)} MiB |`,
    `| 4K (3840x2160) 4 s 30 fps H.264, default limits | ${fourK.outcome} | ${fourK.seconds.toFixed(1)} s | ${fourK.peakTreeMb.toFixed(0)} MiB |`,
    `| 8K (7680x4320) 12 frames H.264, default limits | ${eightK.outcome} | ${eightK.seconds.toFixed(1)} s | ${eightK.peakTreeMb.toFixed(0)} MiB (target ≤ 1024) |`,
  ];
}

async function main(): Promise<void> {
  const childAt = process.argv.indexOf('--rss-child');
  if (childAt >= 0) return rssChild(process.argv[childAt + 1]!);
  const budgetAt = process.argv.indexOf('--budget-child');
  if (budgetAt >= 0)
    return budgetChild(
      process.argv[budgetAt + 1]!,
      JSON.parse(process.argv[budgetAt + 2]!) as Partial<EngineLimits>,
    );
  if (process.argv.includes('--budgets')) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-budgets-'));
    try {
      process.stdout.write(`${(await budgets(dir)).join('\n')}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-engine-'));
  try {
    const clip5 = path.join(dir, '5s.mp4');
    const clip10 = path.join(dir, '10s.mp4');
    const clip60 = path.join(dir, '60s.mp4');
    synthBenchClip(defaultFfmpegPath(), clip5, 5);
    synthBenchClip(defaultFfmpegPath(), clip10, 10);
    synthBenchClip(defaultFfmpegPath(), clip60, 60);
    const dims = await modelFreeDimensions();
    const engine = createEngine({ threads: 2 });

    // 1. decode alone vs. scoring, interleaved.
    const decodeMs: number[] = [];
    const scoreMs: number[] = [];
    const decodeCpu: number[] = [];
    const scoreCpu: number[] = [];
    let decodedFrames = 0;
    await engine.evaluate(clip5, { dimensions: dims }); // warm-up: worker start, code caches
    for (let r = 0; r < ROUNDS; r++) {
      const c0 = cpuMs();
      const d = await decodeAlone(clip5, dims);
      decodeCpu.push(cpuMs() - c0);
      decodeMs.push(d.ms);
      decodedFrames = d.frames;
      const c1 = cpuMs();
      const t0 = performance.now();
      const result = await engine.evaluate(clip5, { dimensions: dims });
      scoreMs.push(performance.now() - t0);
      scoreCpu.push(cpuMs() - c1);
      if (result.failures.length > 0) throw new Error(JSON.stringify(result.failures));
    }

    if (process.argv.includes('--ratio')) {
      await engine.close();
      const [dm, sm, dc, sc] = [median(decodeMs), median(scoreMs), median(decodeCpu), median(scoreCpu)];
      process.stdout.write(
        [
          `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, 1-min load average at the end ${os.loadavg()[0]!.toFixed(1)}; medians of ${ROUNDS} rounds.`,
          '| | wall | CPU |',
          '|---|---|---|',
          `| decode alone | ${dm.toFixed(0)} ms | ${dc.toFixed(0)} ms |`,
          `| score all ${dims.length} model-free dimensions | ${sm.toFixed(0)} ms | ${sc.toFixed(0)} ms |`,
          `| ratio (target ≤ 1.5×) | ${(sm / dm).toFixed(2)}× | ${(sc / dc).toFixed(2)}× |`,
        ].join('\n') + '\n',
      );
      return;
    }

    // 3. per dimension.
    const perDim: Array<{
      dim: DimensionId;
      method: string;
      frames: number;
      size: string;
      methodMs: number;
      wallMs: number;
      cpuMs: number;
      decodeCpuMs: number;
    }> = [];
    for (const dim of dims) {
      const c0 = cpuMs();
      await decodeAlone(clip5, [dim]);
      const decodeCpuMs = cpuMs() - c0;
      const c1 = cpuMs();
      const t0 = performance.now();
      const r = await engine.evaluate(clip5, { dimensions: [dim] });
      const wall = performance.now() - t0;
      const cpu = cpuMs() - c1;
      const s = r.scores[0]!;
      perDim.push({
        dim,
        method: `${s.method} ${s.methodVersion}`,
        frames: s.frames.count,
        size: `${s.frames.width}x${s.frames.height}`,
        methodMs: s.elapsedMs,
        wallMs: wall,
        cpuMs: cpu,
        decodeCpuMs,
      });
    }
    await engine.close();

    // 2. RSS in child processes.
    const rss10 = await childRss(clip10);
    const rss60 = await childRss(clip60);
    // 4. budgets of one scoring slot.
    const budgetLines = await budgets(dir);

    const dm = median(decodeMs);
    const sm = median(scoreMs);
    const dc = median(decodeCpu);
    const sc = median(scoreCpu);
    const load = os.loadavg()[0]!;
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    const lines = [
      `Machine: ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, 1-min load average at the end ${load.toFixed(1)}. Clip: testsrc2 + noise, 1280x720, 30 fps, H.264 CRF 23.`,
      `Model-free dimensions scored: ${dims.join(', ')}.`,
      '',
      '| measurement | value |',
      '|---|---|',
      `| decode alone, 5 s clip (frames the methods ask for: ${decodedFrames}) | ${dm.toFixed(0)} ms (median of ${ROUNDS}) |`,
      `| score all ${dims.length} model-free dimensions, same clip | ${sm.toFixed(0)} ms (median of ${ROUNDS}) |`,
      `| ratio score / decode, wall | ${(sm / dm).toFixed(2)}× (target ≤ 1.5×, issue #24) |`,
      `| CPU, decode alone (FFmpeg + main thread) | ${dc.toFixed(0)} ms |`,
      `| CPU, score (FFmpeg + main thread + workers) | ${sc.toFixed(0)} ms (${(sc / dc).toFixed(2)}×; target ≤ 1.5×) |`,
      `| peak RSS, 10 s clip | ${(rss10 / 1024).toFixed(0)} MiB |`,
      `| peak RSS, 60 s clip | ${(rss60 / 1024).toFixed(0)} MiB (${(((rss60 - rss10) / rss10) * 100).toFixed(1)} % vs 10 s; target within 20 %) |`,
      '',
      '| dimension | method | frames | size | method time (worker, wall) | frames/s (method) | evaluate wall | evaluate CPU | its decode alone, CPU |',
      '|---|---|---|---|---|---|---|---|---|',
      ...perDim.map(
        (p) =>
          `| ${p.dim} | ${p.method} | ${p.frames} | ${p.size} | ${p.methodMs.toFixed(0)} ms | ${((p.frames / p.methodMs) * 1000).toFixed(0)} | ${p.wallMs.toFixed(0)} ms | ${p.cpuMs.toFixed(0)} ms | ${p.decodeCpuMs.toFixed(0)} ms |`,
      ),
      '',
      ...budgetLines,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
