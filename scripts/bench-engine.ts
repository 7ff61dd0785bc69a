/**
 * `npm run bench:engine`: the engine's decode and scoring costs, side by side in one run.
 *
 * 1. Decode alone vs. score: on a synthetic 5 s 1280x720 H.264 clip, stream exactly the frames the
 *    model-free methods ask for (same samplings, sizes, channels; one FFmpeg process) and drop
 *    them; then run `engine.evaluate` on every dimension that has a model-free method.
 *    Interleaved rounds, medians. Target: scoring ≤ 2× decode alone.
 * 2. Peak RSS of a child process that evaluates a 10 s and a 60 s clip (same content and size),
 *    from `process.resourceUsage().maxRSS` (main thread + workers; FFmpeg's own process excluded).
 *    Target: 60 s within 20 % of 10 s (frames stream; nothing grows with clip length).
 * 3. Frames per second per dimension: each dimension alone on the 5 s clip; method time is the wall
 *    time the worker spent in the method; CPU columns (process threads + FFmpeg, from /proc) are
 *    the robust figures on a shared machine.
 *
 * Needs a build (`npm run build`). Prints Markdown for docs/benchmarks.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDecoder, createEngine, defaultFfmpegPath, defaultFfprobePath, planEvaluation, resolveLimits } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';

const ROUNDS = 3;

/**
 * CPU milliseconds used so far by this process (main thread + worker threads) plus its reaped
 * children (FFmpeg, ffprobe), from /proc/self/stat (utime, stime, cutime, cstime; Linux).
 */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks * 1000) / 100;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A moving test pattern with noise (so the encoder and the methods see real texture and motion). */
function synth(file: string, seconds: number): void {
  execFileSync(defaultFfmpegPath(), [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30,noise=alls=8:allf=t`,
    '-t', String(seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', file,
  ]);
}

async function modelFreeDimensions(): Promise<DimensionId[]> {
  const engine = createEngine({ threads: 1 });
  try {
    return engine
      .dimensions()
      .filter((d) => {
        const m = d.methods.find((x) => x.id === d.defaultMethod);
        return m?.available === true && m.requires.models.length === 0 && m.requires.auxiliary.length === 0 && !m.requires.prompt;
      })
      .map((d) => d.id);
  } finally {
    await engine.close();
  }
}

/** Streams the frames the plan asks for and drops them: the decode share of an evaluation. */
async function decodeAlone(file: string, dimensions: DimensionId[]): Promise<{ ms: number; frames: number }> {
  const decoder = createDecoder({ ffmpegPath: defaultFfmpegPath(), ffprobePath: defaultFfprobePath(), limits: resolveLimits({}) });
  const { getDimension, getMethod } = await import('@vesta/engine');
  const t0 = performance.now();
  const probe = await decoder.probe(file);
  const plan = planEvaluation(probe, { dimensions }, { getDimension, getMethod, listDimensions: () => [] }, {});
  let frames = 0;
  for await (const g of decoder.frames(file, probe, plan.outputs)) frames += g.frames.length;
  return { ms: performance.now() - t0, frames };
}

async function childRss(file: string): Promise<number> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, '--rss-child', file], { stdio: ['ignore', 'pipe', 'inherit'] });
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

async function main(): Promise<void> {
  const childAt = process.argv.indexOf('--rss-child');
  if (childAt >= 0) return rssChild(process.argv[childAt + 1]!);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-engine-'));
  try {
    const clip5 = path.join(dir, '5s.mp4');
    const clip10 = path.join(dir, '10s.mp4');
    const clip60 = path.join(dir, '60s.mp4');
    synth(clip5, 5);
    synth(clip10, 10);
    synth(clip60, 60);
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

    // 3. per dimension.
    const perDim: Array<{ dim: DimensionId; method: string; frames: number; size: string; methodMs: number; wallMs: number; cpuMs: number; decodeCpuMs: number }> = [];
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
      perDim.push({ dim, method: `${s.method} ${s.methodVersion}`, frames: s.frames.count, size: `${s.frames.width}x${s.frames.height}`, methodMs: s.elapsedMs, wallMs: wall, cpuMs: cpu, decodeCpuMs });
    }
    await engine.close();

    // 2. RSS in child processes.
    const rss10 = await childRss(clip10);
    const rss60 = await childRss(clip60);

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
      `| ratio score / decode, wall | ${(sm / dm).toFixed(2)}× (target ≤ 2×) |`,
      `| CPU, decode alone (FFmpeg + main thread) | ${dc.toFixed(0)} ms |`,
      `| CPU, score (FFmpeg + main thread + workers) | ${sc.toFixed(0)} ms (${(sc / dc).toFixed(2)}×) |`,
      `| peak RSS, 10 s clip | ${(rss10 / 1024).toFixed(0)} MiB |`,
      `| peak RSS, 60 s clip | ${(rss60 / 1024).toFixed(0)} MiB (${(((rss60 - rss10) / rss10) * 100).toFixed(1)} % vs 10 s; target within 20 %) |`,
      '',
      '| dimension | method | frames | size | method time (worker, wall) | frames/s (method) | evaluate wall | evaluate CPU | its decode alone, CPU |',
      '|---|---|---|---|---|---|---|---|---|',
      ...perDim.map(
        (p) =>
          `| ${p.dim} | ${p.method} | ${p.frames} | ${p.size} | ${p.methodMs.toFixed(0)} ms | ${((p.frames / p.methodMs) * 1000).toFixed(0)} | ${p.wallMs.toFixed(0)} ms | ${p.cpuMs.toFixed(0)} ms | ${p.decodeCpuMs.toFixed(0)} ms |`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
