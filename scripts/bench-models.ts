/**
 * `npm run bench:models`: model inference costs on this machine's CPU (onnxruntime-node).
 *
 * Real weights cannot be downloaded here, so the models are **stand-ins of realistic shape**:
 * ViT encoders written with the engine's ONNX writer that have the real architectures' sizes
 * (patch, width, depth, heads, MLP, projection) and seeded random weights: CLIP ViT-B/32 and
 * ViT-L/14 vision towers, DINO ViT-B/16. Compute and memory match the real models to within the
 * omitted class token (one token of 50 / 197 / 257); scores from them mean nothing.
 *
 * 1. Frames per second per model at batch 1 and at the best batch (1, 2, 4, 8, 16), one session,
 *    preprocessing excluded (the engine's VBench transforms are timed separately).
 * 2. Scaling from 1 to 2 worker threads: two clips evaluated at once by the engine (CLIP B/32
 *    background_consistency) with `threads: 1` vs `threads: 2`.
 * 3. Memory per loaded model: RSS growth of a child process after creating the session and one run.
 * 4. Time to first score: a fresh engine and an empty model cache (files copied from a local model
 *    directory, sha256-verified, sessions created) vs. a fresh engine on the warm cache.
 *
 * Needs a build (`npm run build`). Prints Markdown for docs/benchmarks.md. `BENCH_MODELS=b32,dino`
 * limits the models (l14 is the slow one).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { createEngine, createModelStore, MODEL_MANIFEST } from '@vesta/engine';
import type { ModelManifestEntry } from '@vesta/engine';
import { encodeModel, node, seededWeights, tensor, valueInfo } from '@vesta/engine/testing';
import type { NodeSpec, TensorSpec } from '@vesta/engine/testing';

interface VitShape {
  name: string;
  patch: number;
  width: number;
  layers: number;
  heads: number;
  mlp: number;
  /** Projection width (CLIP `image_embeds`), or null (DINO: `last_hidden_state`). */
  embed: number | null;
}

const SHAPES: Record<string, VitShape> = {
  b32: {
    name: 'CLIP ViT-B/32 vision (clip-vit-b32)',
    patch: 32,
    width: 768,
    layers: 12,
    heads: 12,
    mlp: 3072,
    embed: 512,
  },
  dino: {
    name: 'DINO ViT-B/16 (dino-vitb16)',
    patch: 16,
    width: 768,
    layers: 12,
    heads: 12,
    mlp: 3072,
    embed: null,
  },
  l14: {
    name: 'CLIP ViT-L/14 vision (clip-vit-l14)',
    patch: 14,
    width: 1024,
    layers: 24,
    heads: 16,
    mlp: 4096,
    embed: 768,
  },
};

/** A pre-LN ViT encoder at 224×224 (quick-GELU MLP, as CLIP) with seeded weights. */
export function buildVit(s: VitShape, seed = 1): Uint8Array {
  const d = s.width;
  const n = (224 / s.patch) ** 2;
  const dh = d / s.heads;
  let k = seed;
  const w = (count: number, scale: number): Float32Array => seededWeights(k++, count, scale);
  const inits: TensorSpec[] = [];
  const nodes: NodeSpec[] = [];
  const f = (name: string, dims: number[], scale: number): string => {
    inits.push(
      tensor(
        name,
        'float32',
        dims,
        w(
          dims.reduce((a, b) => a * b, 1),
          scale,
        ),
      ),
    );
    return name;
  };
  const ones = (name: string, len: number): string => {
    inits.push(tensor(name, 'float32', [len], new Float32Array(len).fill(1)));
    return name;
  };
  inits.push(tensor('tok_shape', 'int64', [3], [0, d, -1]));
  inits.push(tensor('qkv_shape', 'int64', [5], [0, n, 3, s.heads, dh]));
  inits.push(tensor('merge_shape', 'int64', [3], [0, n, d]));
  inits.push(tensor('i0', 'int64', [], [0]));
  inits.push(tensor('i1', 'int64', [], [1]));
  inits.push(tensor('i2', 'int64', [], [2]));
  inits.push(tensor('attn_scale', 'float32', [], [1 / Math.sqrt(dh)]));
  inits.push(tensor('gelu_k', 'float32', [], [1.702]));
  nodes.push(
    node('Conv', ['pixel_values', f('patch.w', [d, 3, s.patch, s.patch], 0.02)], ['grid'], {
      kernel_shape: { ints: [s.patch, s.patch] },
      strides: { ints: [s.patch, s.patch] },
    }),
    node('Reshape', ['grid', 'tok_shape'], ['tok_cf']),
    node('Transpose', ['tok_cf'], ['tok'], { perm: { ints: [0, 2, 1] } }),
    node('Add', ['tok', f('pos', [1, n, d], 0.02)], ['x0']),
  );
  let x = 'x0';
  for (let l = 0; l < s.layers; l++) {
    const p = `l${l}.`;
    nodes.push(
      node('LayerNormalization', [x, ones(`${p}ln1.g`, d), f(`${p}ln1.b`, [d], 0.01)], [`${p}h1`], {
        axis: { int: -1 },
      }),
      node('MatMul', [`${p}h1`, f(`${p}qkv.w`, [d, 3 * d], 0.02)], [`${p}qkv0`]),
      node('Add', [`${p}qkv0`, f(`${p}qkv.b`, [3 * d], 0.01)], [`${p}qkv`]),
      node('Reshape', [`${p}qkv`, 'qkv_shape'], [`${p}qkv5`]),
      node('Transpose', [`${p}qkv5`], [`${p}qkvT`], { perm: { ints: [2, 0, 3, 1, 4] } }),
      node('Gather', [`${p}qkvT`, 'i0'], [`${p}q`], { axis: { int: 0 } }),
      node('Gather', [`${p}qkvT`, 'i1'], [`${p}k`], { axis: { int: 0 } }),
      node('Gather', [`${p}qkvT`, 'i2'], [`${p}v`], { axis: { int: 0 } }),
      node('Transpose', [`${p}k`], [`${p}kT`], { perm: { ints: [0, 1, 3, 2] } }),
      node('MatMul', [`${p}q`, `${p}kT`], [`${p}s0`]),
      node('Mul', [`${p}s0`, 'attn_scale'], [`${p}s`]),
      node('Softmax', [`${p}s`], [`${p}a`], { axis: { int: -1 } }),
      node('MatMul', [`${p}a`, `${p}v`], [`${p}o4`]),
      node('Transpose', [`${p}o4`], [`${p}oT`], { perm: { ints: [0, 2, 1, 3] } }),
      node('Reshape', [`${p}oT`, 'merge_shape'], [`${p}o`]),
      node('MatMul', [`${p}o`, f(`${p}proj.w`, [d, d], 0.02)], [`${p}pr0`]),
      node('Add', [`${p}pr0`, f(`${p}proj.b`, [d], 0.01)], [`${p}pr`]),
      node('Add', [x, `${p}pr`], [`${p}r1`]),
      node('LayerNormalization', [`${p}r1`, ones(`${p}ln2.g`, d), f(`${p}ln2.b`, [d], 0.01)], [`${p}h2`], {
        axis: { int: -1 },
      }),
      node('MatMul', [`${p}h2`, f(`${p}fc1.w`, [d, s.mlp], 0.02)], [`${p}m0`]),
      node('Add', [`${p}m0`, f(`${p}fc1.b`, [s.mlp], 0.01)], [`${p}m1`]),
      node('Mul', [`${p}m1`, 'gelu_k'], [`${p}m1k`]),
      node('Sigmoid', [`${p}m1k`], [`${p}gate`]),
      node('Mul', [`${p}m1`, `${p}gate`], [`${p}m2`]),
      node('MatMul', [`${p}m2`, f(`${p}fc2.w`, [s.mlp, d], 0.02)], [`${p}m3`]),
      node('Add', [`${p}m3`, f(`${p}fc2.b`, [d], 0.01)], [`${p}m4`]),
      node('Add', [`${p}r1`, `${p}m4`], [`${p}out`]),
    );
    x = `${p}out`;
  }
  nodes.push(
    node('LayerNormalization', [x, ones('lnf.g', d), f('lnf.b', [d], 0.01)], ['last_hidden_state'], {
      axis: { int: -1 },
    }),
  );
  const outputs = [valueInfo('last_hidden_state', 'float32', ['batch_size', n, d])];
  if (s.embed !== null) {
    nodes.push(
      node('Gather', ['last_hidden_state', 'i0'], ['pooled'], { axis: { int: 1 } }),
      node('MatMul', ['pooled', f('visual_projection', [d, s.embed], 0.02)], ['image_embeds']),
    );
    outputs.unshift(valueInfo('image_embeds', 'float32', ['batch_size', s.embed]));
  }
  return encodeModel({
    graph: {
      name: s.name,
      inputs: [valueInfo('pixel_values', 'float32', ['batch_size', 3, 224, 224])],
      outputs,
      initializers: inits,
      nodes,
    },
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const fmt = (x: number, d = 1): string => x.toFixed(d);

async function throughput(
  file: string,
  batches: number[],
  framesPerPoint: number,
): Promise<Array<{ batch: number; fps: number }>> {
  const session = await ort.InferenceSession.create(file, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    interOpNumThreads: 1,
  });
  const out: Array<{ batch: number; fps: number }> = [];
  for (const b of batches) {
    const input = new ort.Tensor('float32', seededWeights(99, b * 3 * 224 * 224, 1), [b, 3, 224, 224]);
    await session.run({ pixel_values: input }); // warm-up
    const runs = Math.max(2, Math.ceil(framesPerPoint / b));
    const times: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      await session.run({ pixel_values: input });
      times.push(performance.now() - t0);
    }
    out.push({ batch: b, fps: (b * 1000) / median(times) });
  }
  await session.release();
  return out;
}

/** RSS growth of a child process that loads the model and runs it once (batch 1). */
function memoryOf(file: string): { loadMs: number; rssMiB: number } {
  const code = `
    import * as ort from 'onnxruntime-node';
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const s = await ort.InferenceSession.create(${JSON.stringify(file)}, { executionProviders: ['cpu'], graphOptimizationLevel: 'all' });
    const loadMs = performance.now() - t0;
    await s.run({ pixel_values: new ort.Tensor('float32', new Float32Array(3 * 224 * 224), [1, 3, 224, 224]) });
    console.log(JSON.stringify({ loadMs, rssMiB: (process.memoryUsage().rss - before) / 2 ** 20 }));`;
  const outText = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return JSON.parse(outText.trim().split('\n').pop()!) as { loadMs: number; rssMiB: number };
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpus = path.resolve(repoRoot, '..', 'shared', 'corpus');

/** A local model directory holding the stand-in CLIP B/32 under the real repository's layout, plus a pinned manifest. */
function clipModelDir(dir: string, vision: Uint8Array): ModelManifestEntry[] {
  const real = MODEL_MANIFEST.find((m) => m.id === 'clip-vit-b32')!;
  const bytes: Record<string, Uint8Array> = { 'onnx/vision_model.onnx': vision };
  const files = real.files
    .filter((f) => f.precision === null || f.precision === 'fp32')
    .map((f) => {
      const b = bytes[f.path] ?? new TextEncoder().encode('{}');
      const p = path.join(dir, real.source.repo, f.path);
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, b);
      return { ...f, size: null, sha256: null };
    });
  return [{ ...real, precisions: ['fp32'], files }];
}

async function engineRun(
  manifest: ModelManifestEntry[],
  local: string,
  cache: string,
  threads: number,
  clips: string[],
  intraOpThreads = 1,
): Promise<{ ms: number; frames: number }> {
  const store = createModelStore({ cacheDir: cache, localDir: local, offline: true, manifest });
  const engine = createEngine({ models: store, threads, inference: { batchSize: 8, intraOpThreads } });
  try {
    const t0 = performance.now();
    const results = await Promise.all(
      clips.map((c) => engine.evaluate(c, { dimensions: ['background_consistency'] })),
    );
    const ms = performance.now() - t0;
    for (const r of results) if (r.failures.length > 0) throw new Error(JSON.stringify(r.failures));
    return { ms, frames: results.reduce((a, r) => a + (r.scores[0]?.frames.count ?? 0), 0) };
  } finally {
    await engine.close();
  }
}

async function main(): Promise<void> {
  const wanted = (process.env.BENCH_MODELS ?? 'b32,dino,l14').split(',');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-bench-models-'));
  const lines: string[] = [];
  const say = (s = ''): void => {
    lines.push(s);
    console.log(s);
  };
  try {
    say(
      `Machine: ${os.cpus().length} CPU cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, onnxruntime-node ${ort.env.versions.node ?? ''}, execution provider cpu. No CUDA GPU here.`,
    );
    say();
    say(
      '| model (stand-in of real shape) | file MiB | load ms | RSS after load + 1 run, MiB | frames/s batch 1 | best batch | frames/s best |',
    );
    say('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    const files: Record<string, string> = {};
    for (const key of wanted) {
      const shape = SHAPES[key];
      if (!shape) continue;
      const bytes = buildVit(shape);
      const file = path.join(tmp, `${key}.onnx`);
      writeFileSync(file, bytes);
      files[key] = file;
      const mem = memoryOf(file);
      const batches = key === 'l14' ? [1, 2, 4] : [1, 2, 4, 8, 16];
      const tp = await throughput(file, batches, key === 'l14' ? 4 : 16);
      const best = tp.reduce((a, b) => (b.fps > a.fps ? b : a));
      say(
        `| ${shape.name} | ${fmt(bytes.length / 2 ** 20, 0)} | ${fmt(mem.loadMs, 0)} | ${fmt(mem.rssMiB, 0)} | ${fmt(tp[0]!.fps, 2)} | ${best.batch} | ${fmt(best.fps, 2)} |`,
      );
    }
    if (files.b32) {
      const vision = readFileSync(files.b32);
      const local = path.join(tmp, 'local');
      const manifest = clipModelDir(local, vision);
      const clips = ['show-1__blue-tiger-butterflies.mp4', 'modelscope-t2v__blue-tiger-butterflies.mp4'].map(
        (c) => path.join(corpus, c),
      );
      say();
      say(
        'Engine, CLIP B/32 `background_consistency` (every frame at native size → VBench CLIP transform → batch 8):',
      );
      say();
      say('| case | wall ms | frames | frames/s |');
      say('| --- | ---: | ---: | ---: |');
      const cold = await engineRun(manifest, local, path.join(tmp, 'cache-a'), 1, clips.slice(0, 1));
      say(
        `| time to first score, cold cache (copy + sha256 + session) | ${fmt(cold.ms, 0)} | ${cold.frames} | ${fmt((cold.frames * 1000) / cold.ms)} |`,
      );
      const warm = await engineRun(manifest, local, path.join(tmp, 'cache-a'), 1, clips.slice(0, 1));
      say(
        `| time to first score, warm cache (new engine, session created) | ${fmt(warm.ms, 0)} | ${warm.frames} | ${fmt((warm.frames * 1000) / warm.ms)} |`,
      );
      const wide = await engineRun(manifest, local, path.join(tmp, 'cache-a'), 1, clips.slice(0, 1), 2);
      say(
        `| warm cache, one worker with 2 onnxruntime threads | ${fmt(wide.ms, 0)} | ${wide.frames} | ${fmt((wide.frames * 1000) / wide.ms)} |`,
      );
      for (const threads of [1, 2]) {
        await engineRun(manifest, local, path.join(tmp, 'cache-a'), threads, clips.slice(0, 1)); // warm the page cache
        const r = await engineRun(manifest, local, path.join(tmp, 'cache-a'), threads, clips);
        say(
          `| two clips at once, ${threads} worker thread${threads > 1 ? 's' : ''} | ${fmt(r.ms, 0)} | ${r.frames} | ${fmt((r.frames * 1000) / r.ms)} |`,
        );
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
