/**
 * Reusable scratch buffers for the pixel kernels. Methods run synchronously inside one worker
 * thread, so a kernel can borrow a buffer for the length of one call instead of allocating (and
 * later collecting) a fresh typed array per frame. Each call site uses its own key; a buffer's
 * contents are whatever the last borrower left: callers that need zeros clear it.
 */
const f32 = new Map<string, Float32Array>();
const u16 = new Map<string, Uint16Array>();
const u8 = new Map<string, Uint8Array>();
const i32 = new Map<string, Int32Array>();
const f64 = new Map<string, Float64Array>();

function grow(n: number): number {
  return Math.max(n, 1024);
}

export function scratchF32(key: string, n: number): Float32Array {
  let a = f32.get(key);
  if (!a || a.length < n) {
    a = new Float32Array(grow(n));
    f32.set(key, a);
  }
  return a.length === n ? a : a.subarray(0, n);
}

export function scratchU16(key: string, n: number): Uint16Array {
  let a = u16.get(key);
  if (!a || a.length < n) {
    a = new Uint16Array(grow(n));
    u16.set(key, a);
  }
  return a.length === n ? a : a.subarray(0, n);
}

export function scratchU8(key: string, n: number): Uint8Array {
  let a = u8.get(key);
  if (!a || a.length < n) {
    a = new Uint8Array(grow(n));
    u8.set(key, a);
  }
  return a.length === n ? a : a.subarray(0, n);
}

export function scratchI32(key: string, n: number): Int32Array {
  let a = i32.get(key);
  if (!a || a.length < n) {
    a = new Int32Array(grow(n));
    i32.set(key, a);
  }
  return a.length === n ? a : a.subarray(0, n);
}

export function scratchF64(key: string, n: number): Float64Array {
  let a = f64.get(key);
  if (!a || a.length < n) {
    a = new Float64Array(grow(n));
    f64.set(key, a);
  }
  return a.length === n ? a : a.subarray(0, n);
}
