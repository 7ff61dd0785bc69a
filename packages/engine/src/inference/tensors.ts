/** Conversions between plain arrays and onnxruntime tensors (float16 in and out included). */
import type * as ort from 'onnxruntime-node';
import type { OrtModule } from './runtime.js';

// Scratch for reading a float32's bits: module-level, because toHalf runs once per input value.
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** float32 → IEEE half bit pattern (round to nearest even; overflow → infinity). */
export function toHalf(value: number): number {
  F32[0] = value;
  const x = U32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // Rounding up the largest finite value carries into the exponent and gives 0x7c00: infinity.
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}

export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** A float input tensor in the element type the session declares for `name` (float32 or float16). */
export function floatInput(
  runtime: OrtModule,
  session: ort.InferenceSession,
  name: string,
  data: Float32Array,
  dims: readonly number[],
): ort.Tensor {
  const meta = session.inputMetadata.find((m) => m.name === name);
  if (meta && meta.isTensor && meta.type === 'float16') {
    const half = new Uint16Array(data.length);
    for (let i = 0; i < data.length; i++) half[i] = toHalf(data[i]!);
    return new runtime.Tensor('float16', half, dims);
  }
  return new runtime.Tensor('float32', data, dims);
}

/** An output tensor's values as float32 (float16 outputs are widened). */
export function floatOutput(
  tensor: ort.Tensor | undefined,
  name: string,
): { data: Float32Array; dims: number[] } {
  if (!tensor) throw new Error(`the model has no output "${name}"`);
  const dims = [...tensor.dims];
  if (tensor.type === 'float32') return { data: tensor.data as Float32Array, dims };
  if (tensor.type === 'float16') {
    const raw = tensor.data as unknown as ArrayLike<number>;
    const src =
      raw instanceof Uint16Array ? raw : new Uint16Array((raw as unknown as { buffer: ArrayBuffer }).buffer);
    const out = new Float32Array(src.length);
    for (let i = 0; i < src.length; i++) out[i] = fromHalf(src[i]!);
    return { data: out, dims };
  }
  throw new Error(`output "${name}" has type ${tensor.type}, expected a float tensor`);
}
