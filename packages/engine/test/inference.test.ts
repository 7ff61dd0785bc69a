/**
 * Inference plumbing on fixture models run by onnxruntime-node: CLIP tokenisation, the worker's
 * session cache (one session per model file, LRU-bounded), batched feature queues (frames per run,
 * dedupe, outputs equal to the fixture's reference forward pass), float16 conversion and the LAION
 * head reader.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../src/contract.js';
import { featureSpec, JobInference } from '../src/inference/job.js';
import type { ModelFiles } from '../src/inference/job.js';
import { SessionCache } from '../src/inference/sessions.js';
import { resolveInference } from '../src/inference/settings.js';
import * as ort from 'onnxruntime-node';
import { floatInput, floatOutput, fromHalf, toHalf } from '../src/inference/tensors.js';
import { modelPrecision } from '../src/engine.js';
import { createModelStore } from '../src/models/index.js';
import { applyTransform, TRANSFORMS } from '../src/preprocess/transforms.js';
import { loadClipTokenizer } from '../src/text/clip-tokenizer.js';
import { parseLinearHead } from '../src/dimensions/model/linear-head.js';
import { EOT, linearHeadPth, SOT, tinyClipTokenizerJson, tinyClipVocab } from './helpers/model-dir.js';
import {
  encodeModel,
  node,
  tensor,
  tinyClipText,
  tinyClipVision,
  tinyDino,
  valueInfo,
} from '../src/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'vesta-inference-'));
const vocab = tinyClipVocab();

function frame(index: number, width: number, height: number, seed: number): Frame {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed * 17) % 251;
  return { index, timeSeconds: index / 10, width, height, channels: 3, data };
}

describe('CLIP tokenizer (tokenizer.json through @huggingface/tokenizers)', () => {
  const path = join(dir, 'tokenizer.json');
  const config = join(dir, 'tokenizer_config.json');
  beforeAll(() => {
    writeFileSync(path, JSON.stringify(tinyClipTokenizerJson()));
    writeFileSync(config, JSON.stringify({ pad_token: '<|endoftext|>' }));
  });

  it('normalises, applies the BPE merges and </w>, adds start/end and pads to 77 with end-of-text', () => {
    const t = loadClipTokenizer(path, config);
    const b = t.encode(['A  Cat.', 'photo']);
    expect([b.count, b.length]).toEqual([2, 77]);
    const row0 = Array.from(b.ids.slice(0, 6), Number);
    expect(row0).toEqual([SOT, vocab['a</w>'], vocab['cat</w>'], vocab['.</w>'], EOT, EOT]);
    expect(Array.from(b.mask.slice(0, 6), Number)).toEqual([1, 1, 1, 1, 1, 0]);
    expect(Number(b.ids[76])).toBe(EOT);
    expect(Array.from(b.ids.slice(77, 80), Number)).toEqual([SOT, vocab['photo</w>'], EOT]);
  });

  it('truncates long texts to 77 tokens with end-of-text last (clip.tokenize)', () => {
    const t = loadClipTokenizer(path, config);
    const b = t.encode([Array.from({ length: 100 }, () => 'cat').join(' ')]);
    expect(Number(b.ids[0])).toBe(SOT);
    expect(Number(b.ids[75])).toBe(vocab['cat</w>']);
    expect(Number(b.ids[76])).toBe(EOT);
  });

  it('reports an unreadable tokenizer as model_unavailable', () => {
    writeFileSync(join(dir, 'bad.json'), '{not json');
    expect(() => loadClipTokenizer(join(dir, 'bad.json'))).toThrow(
      expect.objectContaining({ code: 'model_unavailable' }) as Error,
    );
  });
});

describe('sessions and batched features', () => {
  const clip = tinyClipVision({ seed: 3 });
  const dino = tinyDino({ seed: 4 });
  const clipPath = join(dir, 'clip.onnx');
  const dinoPath = join(dir, 'dino.onnx');
  const models: Record<string, ModelFiles> = {
    clip: { id: 'clip', files: { vision: clipPath }, ref: { id: 'clip', revision: 'r1', precision: 'fp32' } },
    dino: { id: 'dino', files: { model: dinoPath }, ref: { id: 'dino', revision: 'r2', precision: 'fp32' } },
  };
  let cache: SessionCache;
  beforeAll(() => {
    writeFileSync(clipPath, clip.bytes);
    writeFileSync(dinoPath, dino.bytes);
    cache = new SessionCache(resolveInference({ maxSessions: 1 }));
  });
  afterAll(async () => {
    await cache.close();
  });

  it('runs frames in batches and returns the reference forward pass for each frame', async () => {
    const job = new JobInference(cache, models, 3);
    const q = job.queue(featureSpec('clip', 'vision', 'pixel_values', 'image_embeds', 'row', 'clip224'));
    const frames = Array.from({ length: 7 }, (_, i) => frame(i, 320, 240, i));
    const results = frames.map((f) => q.submit(f));
    // Submitting the same frame again reuses its result (one run per frame per model).
    expect(q.submit(frames[2]!)).toBe(results[2]);
    await q.drain();
    expect(q.runs).toBe(3); // 3 + 3 + 1
    const got = await Promise.all(results);
    for (let i = 0; i < frames.length; i++) {
      const x = applyTransform(TRANSFORMS.clip224, frames[i]!);
      const ref = clip.reference({ data: x.data, dims: [1, 3, 224, 224] }).image_embeds.data;
      got[i]!.forEach((v, k) => expect(v).toBeCloseTo(ref[k]!, 4));
    }
    job.close();
  });

  it('reads the CLS token of an aspect-preserving DINO input', async () => {
    const job = new JobInference(cache, models, 4);
    const q = job.queue(featureSpec('dino', 'model', 'pixel_values', 'last_hidden_state', 'cls', 'dino224'));
    const f = frame(0, 320, 180, 9); // → 398×224
    const p = q.submit(f);
    await q.drain();
    const x = applyTransform(TRANSFORMS.dino224, f);
    expect([x.width, x.height]).toEqual([398, 224]);
    const ref = dino.reference({ data: x.data, dims: [1, 3, 224, 398] }).last_hidden_state.data;
    (await p).forEach((v, k) => expect(v).toBeCloseTo(ref[k]!, 4));
    job.close();
  });

  it('redoes the first batch with the fallback transform when the export rejects the input size (fixed 224×224 positions)', async () => {
    // pixel_values → 16×16 patches (D = 4) → + position embeddings fixed for 14×14 patches.
    const d = 4;
    const fixed = encodeModel({
      graph: {
        name: 'fixed_pos_vit',
        inputs: [valueInfo('pixel_values', 'float32', ['b', 3, 'h', 'w'])],
        outputs: [valueInfo('last_hidden_state', 'float32', ['b', 196, d])],
        initializers: [
          tensor(
            'patch.w',
            'float32',
            [d, 3, 16, 16],
            Float32Array.from({ length: d * 3 * 256 }, (_, i) => ((i % 13) - 6) / 500),
          ),
          tensor('tok_shape', 'int64', [3], [0, d, -1]),
          tensor(
            'pos',
            'float32',
            [1, 196, d],
            Float32Array.from({ length: 196 * d }, (_, i) => i / 1000),
          ),
        ],
        nodes: [
          node('Conv', ['pixel_values', 'patch.w'], ['grid'], {
            kernel_shape: { ints: [16, 16] },
            strides: { ints: [16, 16] },
          }),
          node('Reshape', ['grid', 'tok_shape'], ['tok_cf']),
          node('Transpose', ['tok_cf'], ['tok'], { perm: { ints: [0, 2, 1] } }),
          node('Add', ['tok', 'pos'], ['last_hidden_state']),
        ],
      },
    });
    const fixedPath = join(dir, 'fixed-vit.onnx');
    writeFileSync(fixedPath, fixed);
    const job = new JobInference(
      cache,
      { v: { id: 'v', files: { model: fixedPath }, ref: { id: 'v', revision: 'r', precision: 'fp32' } } },
      2,
    );
    const q = job.queue({
      ...featureSpec('v', 'model', 'pixel_values', 'last_hidden_state', 'cls', 'dino224'),
      fallback: 'dino224crop',
    });
    const frames = [frame(0, 320, 240, 1), frame(1, 320, 240, 2), frame(2, 320, 240, 3)];
    const got = frames.map((f) => q.submit(f));
    await q.drain();
    expect(q.transform).toBe('dino224crop');
    expect(q.fallbackReason).toBeTruthy();
    expect(q.inputSize).toEqual({ width: 224, height: 224 });
    const session = await ort.InferenceSession.create(fixed);
    for (const [i, f] of frames.entries()) {
      const x = applyTransform(TRANSFORMS.dino224crop, f);
      const ref = (await session.run({ pixel_values: new ort.Tensor('float32', x.data, [1, 3, 224, 224]) }))
        .last_hidden_state!.data as Float32Array;
      (await got[i]!).forEach((v, k) => expect(v).toBeCloseTo(ref[k]!, 5));
    }
    await session.release();
    job.close();
  });

  it('shares one session per model file and releases the least recently used beyond the limit', async () => {
    const a = await cache.acquire(clipPath);
    const b = await cache.acquire(clipPath);
    expect(a.session).toBe(b.session);
    a.release();
    b.release();
    const c = await cache.acquire(dinoPath);
    c.release();
    expect(cache.loaded()).toEqual([dinoPath]); // maxSessions = 1: the idle CLIP session was released
  });

  it('keeps a held session loaded past the limit', async () => {
    const held = await cache.acquire(clipPath);
    const other = await cache.acquire(dinoPath);
    other.release();
    expect(cache.loaded()).toContain(clipPath);
    held.release();
  });

  it('execution providers: auto runs (CUDA when its libraries load, else CPU); cuda without them is model_unavailable', async () => {
    const auto = new SessionCache(resolveInference({ provider: 'auto' }));
    const s = await auto.acquire(clipPath);
    s.release();
    const cudaLib = join(
      dirname(createRequire(import.meta.url).resolve('onnxruntime-node')),
      '..',
      'bin',
      'napi-v6',
      'linux',
      'x64',
      'libonnxruntime_providers_cuda.so',
    );
    const hasCuda = existsSync(cudaLib);
    expect(auto.provider).toBe(hasCuda ? 'cuda' : 'cpu');
    await auto.close();
    const cuda = new SessionCache(resolveInference({ provider: 'cuda' }));
    if (hasCuda) {
      (await cuda.acquire(clipPath)).release();
      expect(cuda.provider).toBe('cuda');
    } else {
      await expect(cuda.acquire(clipPath)).rejects.toMatchObject({
        code: 'model_unavailable',
        message: expect.stringMatching(/Cuda|CUDA|cuda/) as string,
      });
    }
    await cuda.close();
    expect(() => resolveInference({ provider: 'tpu' as never })).toThrow(/execution provider/);
  });

  it("embeds a text once per worker: a second job reuses the first job's embedding", async () => {
    const text = tinyClipText({ seed: 5 });
    writeFileSync(join(dir, 'text.onnx'), text.bytes);
    writeFileSync(join(dir, 'tok.json'), JSON.stringify(tinyClipTokenizerJson()));
    const withText = {
      ...models,
      clip: {
        ...models.clip!,
        files: { ...models.clip!.files, text: join(dir, 'text.onnx'), tokenizer: join(dir, 'tok.json') },
      },
    };
    const first = new JobInference(cache, withText, 4);
    const [a] = await first.textEmbeddings('clip', ['a cat.']);
    first.close();
    const second = new JobInference(cache, withText, 4);
    const [b, c] = await second.textEmbeddings('clip', ['a cat.', 'photo']);
    second.close();
    expect(b).toBe(a); // the same array: not recomputed
    const ids = loadClipTokenizer(join(dir, 'tok.json')).encode(['photo']);
    const ref = text.reference({ data: ids.ids, dims: [1, 77] }).text_embeds.data;
    c!.forEach((v, k) => expect(v).toBeCloseTo(ref[k]!, 5));
  });

  it('fails a missing model file with model_unavailable', async () => {
    await expect(cache.acquire(join(dir, 'absent.onnx'))).rejects.toMatchObject({
      code: 'model_unavailable',
    });
  });

  it('back-pressure: pressure() is pending while a batch runs', async () => {
    const job = new JobInference(cache, models, 1);
    const q = job.queue(featureSpec('clip', 'vision', 'pixel_values', 'image_embeds', 'row', 'clip224'));
    expect(q.pressure()).toBeUndefined();
    const r = q.submit(frame(0, 224, 224, 1));
    const waiting = q.pressure();
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    expect(q.pressure()).toBeUndefined();
    await r;
    job.close();
  });
});

describe('float16 and the aesthetic head reader', () => {
  it('converts float32 ↔ float16 (round to nearest even)', () => {
    for (const v of [0, 1, -2, 0.5, 65504, 1e-5, 3.14159]) expect(fromHalf(toHalf(v))).toBeCloseTo(v, 2);
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(1e6)).toBe(0x7c00); // overflow → infinity
  });

  it('feeds and reads float16 tensors for fp16 exports', async () => {
    const bytes = encodeModel({
      graph: {
        name: 'half',
        inputs: [valueInfo('x', 'float16', ['b', 3])],
        outputs: [valueInfo('y', 'float16', ['b', 3])],
        initializers: [tensor('two', 'float16', [1], [2])],
        nodes: [node('Mul', ['x', 'two'], ['y'])],
      },
    });
    const session = await ort.InferenceSession.create(bytes);
    const out = await session.run({
      x: floatInput(ort, session, 'x', Float32Array.from([0.5, -1.25, 3]), [1, 3]),
    });
    expect(Array.from(floatOutput(out.y, 'y').data)).toEqual([1, -2.5, 6]);
    await session.release();
  });

  it('uses the configured precision where a model publishes it, else the model default', () => {
    const store = createModelStore({ cacheDir: join(dir, 'p-cache'), offline: true });
    expect(modelPrecision(store, 'clip-vit-b32', 'q8')).toBe('q8');
    expect(modelPrecision(store, 'clip-vit-b32', 'fp16')).toBe('fp16');
    expect(modelPrecision(store, 'laion-aesthetic-v1-linear', 'fp16')).toBe('fp32');
    expect(modelPrecision(store, 'rife-v4.9', 'q8')).toBe('fp32');
  });

  it('reads weight and bias from a torch zip checkpoint and from the legacy layout', () => {
    const w = Float32Array.from({ length: 768 }, (_, i) => (i - 384) / 1000);
    const head = parseLinearHead(linearHeadPth(w, 2.5));
    expect(head.bias).toBe(2.5);
    expect(Array.from(head.weight)).toEqual(Array.from(w));
    // Legacy: … [int64 768][weight] [int64 1][bias]
    const legacy = new Uint8Array(16 + 8 + 3072 + 8 + 4);
    const v = new DataView(legacy.buffer);
    v.setBigInt64(16, 768n, true);
    legacy.set(new Uint8Array(w.buffer.slice(0)), 24);
    v.setBigInt64(24 + 3072, 1n, true);
    v.setFloat32(24 + 3072 + 8, -1.25, true);
    const lh = parseLinearHead(legacy);
    expect(lh.bias).toBe(-1.25);
    expect(lh.weight[0]).toBeCloseTo(-0.384, 6);
    expect(() => parseLinearHead(new Uint8Array(100))).toThrow(/linear head/);
  });
});
