import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import {
  encodeModel,
  node,
  rawTensorBytes,
  seededWeights,
  tensor,
  tinyClipText,
  tinyClipVision,
  tinyDetr,
  tinyDino,
  tinyFlow,
  tinyInterpolator,
  tinyLinearHead,
  toFloat16Bits,
  valueInfo,
} from '../src/testing/index.js';
import type { FloatTensor } from '../src/testing/index.js';

const TOL = 1e-5;

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return m;
}

function image(dims: [number, number, number, number], seed: number): FloatTensor {
  const n = dims.reduce((p, d) => p * d, 1);
  // Pixel-like values: CLIP-normalised inputs sit roughly in [-2, 2].
  return { data: seededWeights(seed, n, 2), dims };
}

async function session(bytes: Uint8Array): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(bytes);
}

function floatInput(t: FloatTensor): ort.Tensor {
  return new ort.Tensor('float32', t.data, t.dims);
}

describe('onnx writer: encoding', () => {
  it('writes a model onnxruntime loads, with names, symbolic dims and metadata', async () => {
    const bytes = encodeModel({
      graph: {
        name: 'scale',
        inputs: [valueInfo('x', 'float32', ['batch', 3])],
        outputs: [valueInfo('y', 'float32', ['batch', 3])],
        initializers: [tensor('k', 'float32', [3], [1, -2, 0.5])],
        nodes: [node('Mul', ['x', 'k'], ['y'])],
      },
      metadata: { purpose: 'test' },
    });
    const s = await session(bytes);
    expect(s.inputNames).toEqual(['x']);
    expect(s.outputNames).toEqual(['y']);
    const out = await s.run({ x: new ort.Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]) });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([1, -4, 1.5, 4, -10, 3]);
    await s.release();
  });

  it('encodes negative int attributes and int64 initialisers (10-byte varints)', async () => {
    const bytes = encodeModel({
      graph: {
        name: 'flatten_last',
        inputs: [valueInfo('x', 'float32', [2, 3, 4])],
        outputs: [valueInfo('y', 'float32', [2, 12]), valueInfo('m', 'float32', [2, 3])],
        initializers: [tensor('shape', 'int64', [2], BigInt64Array.from([0n, -1n]))],
        nodes: [
          node('Reshape', ['x', 'shape'], ['y']),
          node('ReduceMax', ['x'], ['m'], { axes: { ints: [-1] }, keepdims: { int: 0 } }),
        ],
      },
    });
    const s = await session(bytes);
    const x = Float32Array.from({ length: 24 }, (_, i) => (i * 7) % 11);
    const out = await s.run({ x: new ort.Tensor('float32', x, [2, 3, 4]) });
    expect(out.y!.dims).toEqual([2, 12]);
    const m = Array.from(out.m!.data as Float32Array);
    const expected = [0, 1, 2, 3, 4, 5].map((r) => Math.max(...Array.from(x.slice(r * 4, r * 4 + 4))));
    expect(m).toEqual(expected);
    await s.release();
  });

  it('rejects graphs that read undefined tensors and data that does not fit the dims', () => {
    expect(() =>
      encodeModel({
        graph: {
          name: 'bad',
          inputs: [valueInfo('x', 'float32', [1])],
          outputs: [valueInfo('y', 'float32', [1])],
          nodes: [node('Add', ['x', 'missing'], ['y'])],
        },
      }),
    ).toThrow(/undefined tensor "missing"/);
    expect(() => rawTensorBytes(tensor('t', 'float32', [2, 2], [1, 2, 3]))).toThrow(
      /3 values for dims \[2,2\]/,
    );
  });

  it('converts float16 with round-to-nearest-even', () => {
    expect(toFloat16Bits(1)).toBe(0x3c00);
    expect(toFloat16Bits(-2)).toBe(0xc000);
    expect(toFloat16Bits(65504)).toBe(0x7bff);
    expect(toFloat16Bits(1e6)).toBe(0x7c00);
    expect(toFloat16Bits(5.960464477539063e-8)).toBe(0x0001);
    expect(toFloat16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie → even
  });

  it('float16 initialisers run through Cast', async () => {
    const bytes = encodeModel({
      graph: {
        name: 'half',
        inputs: [valueInfo('x', 'float32', [2])],
        outputs: [valueInfo('y', 'float32', [2])],
        initializers: [tensor('h', 'float16', [2], [0.5, -3])],
        nodes: [node('Cast', ['h'], ['hf'], { to: { int: 1 } }), node('Mul', ['x', 'hf'], ['y'])],
      },
    });
    const s = await session(bytes);
    const out = await s.run({ x: new ort.Tensor('float32', Float32Array.from([4, 2]), [2]) });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([2, -6]);
    await s.release();
  });

  it('is deterministic (same spec, same bytes)', () => {
    expect(Buffer.from(tinyClipVision().bytes).equals(Buffer.from(tinyClipVision().bytes))).toBe(true);
    expect(Buffer.from(tinyClipVision({ seed: 1 }).bytes).equals(Buffer.from(tinyClipVision().bytes))).toBe(
      false,
    );
  });
});

describe('onnx writer: fixture models match their JS reference in onnxruntime', () => {
  it('tiny CLIP vision: pixel_values → image_embeds, last_hidden_state', async () => {
    const m = tinyClipVision();
    const s = await session(m.bytes);
    expect(s.inputNames).toEqual(['pixel_values']);
    expect(s.outputNames).toEqual(['image_embeds', 'last_hidden_state']);
    const x = image([2, 3, 224, 224], 7);
    const out = await s.run({ pixel_values: floatInput(x) });
    const ref = m.reference(x);
    expect(out.image_embeds!.dims).toEqual([2, 4]);
    expect(out.last_hidden_state!.dims).toEqual([2, 50, 8]);
    expect(maxAbsDiff(out.image_embeds!.data as Float32Array, ref.image_embeds.data)).toBeLessThanOrEqual(
      TOL,
    );
    expect(
      maxAbsDiff(out.last_hidden_state!.data as Float32Array, ref.last_hidden_state.data),
    ).toBeLessThanOrEqual(TOL);
    await s.release();
  });

  it('tiny DINO accepts non-square input (224 short side) and its CLS token matches', async () => {
    const m = tinyDino();
    const s = await session(m.bytes);
    const x = image([1, 3, 224, 288], 8);
    const out = await s.run({ pixel_values: floatInput(x) });
    const ref = m.reference(x);
    expect(out.last_hidden_state!.dims).toEqual([1, 1 + 14 * 18, 8]);
    expect(
      maxAbsDiff(out.last_hidden_state!.data as Float32Array, ref.last_hidden_state.data),
    ).toBeLessThanOrEqual(TOL);
    await s.release();
  });

  it('tiny CLIP text: real-range token ids (mod vocab), optional attention_mask', async () => {
    const m = tinyClipText({ attentionMask: true });
    const s = await session(m.bytes);
    expect(s.inputNames).toEqual(['input_ids', 'attention_mask']);
    const ids = BigInt64Array.from([
      49406n,
      320n,
      1929n,
      49407n,
      49407n,
      49407n,
      49406n,
      7n,
      49407n,
      0n,
      0n,
      0n,
    ]);
    const mask = BigInt64Array.from(ids, (v) => (v === 0n ? 0n : 1n));
    const out = await s.run({
      input_ids: new ort.Tensor('int64', ids, [2, 6]),
      attention_mask: new ort.Tensor('int64', mask, [2, 6]),
    });
    const ref = m.reference({ data: ids, dims: [2, 6] });
    expect(out.text_embeds!.dims).toEqual([2, 4]);
    expect(maxAbsDiff(out.text_embeds!.data as Float32Array, ref.text_embeds.data)).toBeLessThanOrEqual(TOL);
    expect(
      maxAbsDiff(out.last_hidden_state!.data as Float32Array, ref.last_hidden_state.data),
    ).toBeLessThanOrEqual(TOL);
    await s.release();
  });

  it('768→1 linear head (nn.Linear layout)', async () => {
    const m = tinyLinearHead();
    const s = await session(m.bytes);
    const x: FloatTensor = { data: seededWeights(9, 3 * 768, 0.05), dims: [3, 768] };
    const out = await s.run({ embeds: floatInput(x) });
    expect(out.score!.dims).toEqual([3, 1]);
    expect(maxAbsDiff(out.score!.data as Float32Array, m.reference(x).data)).toBeLessThanOrEqual(TOL);
    await s.release();
  });

  it('interpolator and flow fixtures', async () => {
    const interp = tinyInterpolator();
    const s1 = await session(interp.bytes);
    const a = image([1, 3, 32, 32], 10);
    const b = image([1, 3, 32, 32], 11);
    const o1 = await s1.run({
      img0: floatInput(a),
      img1: floatInput(b),
      timestep: new ort.Tensor('float32', Float32Array.from([0.5]), [1]),
    });
    expect(
      maxAbsDiff(o1.output!.data as Float32Array, interp.reference({ img0: a, img1: b, timestep: 0.5 }).data),
    ).toBeLessThanOrEqual(TOL);
    await s1.release();

    const flow = tinyFlow();
    const s2 = await session(flow.bytes);
    const o2 = await s2.run({ image1: floatInput(a), image2: floatInput(b) });
    expect(o2.flow!.dims).toEqual([1, 2, 32, 32]);
    expect(maxAbsDiff(o2.flow!.data as Float32Array, flow.reference([a, b]).data)).toBeLessThanOrEqual(TOL);
    await s2.release();
  });

  it('tiny DETR: logits and sigmoid boxes', async () => {
    const m = tinyDetr();
    const s = await session(m.bytes);
    const x = image([1, 3, 64, 96], 12);
    const out = await s.run({ pixel_values: floatInput(x) });
    const ref = m.reference(x);
    expect(out.logits!.dims).toEqual([1, 6, 92]);
    expect(out.pred_boxes!.dims).toEqual([1, 6, 4]);
    expect(maxAbsDiff(out.logits!.data as Float32Array, ref.logits.data)).toBeLessThanOrEqual(TOL);
    expect(maxAbsDiff(out.pred_boxes!.data as Float32Array, ref.pred_boxes.data)).toBeLessThanOrEqual(TOL);
    await s.release();
  });
});
