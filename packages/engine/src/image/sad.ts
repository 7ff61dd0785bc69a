/**
 * Sum of absolute differences of two byte buffers with WebAssembly SIMD (128-bit lanes), for the
 * exact native-resolution `temporal_flickering` formula: about 20× faster than the scalar loop.
 *
 * The kernel is a hand-assembled module of one function, `sad(a, b, n) → i32`: for n bytes (a
 * multiple of 16) at offsets a and b of its memory it sums |a_i − b_i| as
 * (a ⊖ b) | (b ⊖ a) (saturating byte subtraction), widened pairwise into 16-bit lanes for up to
 * 128 vectors, then into 32-bit lanes. Callers keep n ≤ 2^22 so the i32 result cannot overflow.
 * When WebAssembly SIMD is unavailable, `createAbsDiffSummer` returns null and callers use the
 * scalar `meanAbsDiff`.
 */

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function section(id: number, bytes: number[]): number[] {
  return [id, ...leb(bytes.length), ...bytes];
}

function name(s: string): number[] {
  return [...leb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
}

/** The module's bytes (see the file comment for the function). */
export function sadModuleBytes(): Uint8Array {
  const simd = (op: number) => [0xfd, ...leb(op)];
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const [A, B, N, I, K, ACC32, ACC16, VA, VB] = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
  const I32_GE_U = 0x4f;
  const I32_ADD = 0x6a;
  // prettier-ignore
  const body = [
    0x02, 0x40, 0x03, 0x40, //                                   block { loop {
    ...get(I), ...get(N), I32_GE_U, 0x0d, 1, //                   if i >= n: break
    ...simd(0x0c), ...new Array<number>(16).fill(0), ...set(ACC16), // acc16 = 0
    0x41, 0, ...set(K), //                                        k = 0
    0x02, 0x40, 0x03, 0x40, //                                   block { loop {
    ...get(I), ...get(N), I32_GE_U, 0x0d, 1, //                   if i >= n: break
    ...get(K), 0x41, 0x80, 0x01, I32_GE_U, 0x0d, 1, //            if k >= 128: break
    ...get(A), ...get(I), I32_ADD, ...simd(0x00), 0, 0, ...set(VA), // va = v128.load(a + i)
    ...get(B), ...get(I), I32_ADD, ...simd(0x00), 0, 0, ...set(VB), // vb = v128.load(b + i)
    ...get(VA), ...get(VB), ...simd(0x73), //                     sub_sat_u(va, vb)
    ...get(VB), ...get(VA), ...simd(0x73), ...simd(0x50), //      | sub_sat_u(vb, va)
    ...simd(0x7d), ...get(ACC16), ...simd(0x8e), ...set(ACC16), // acc16 += extadd_pairwise_u8
    ...get(I), 0x41, 0x10, I32_ADD, ...set(I), //                 i += 16
    ...get(K), 0x41, 1, I32_ADD, ...set(K), //                    k += 1
    0x0c, 0, 0x0b, 0x0b, //                                       continue } }
    ...get(ACC32), ...get(ACC16), ...simd(0x7f), ...simd(0xae), ...set(ACC32), // acc32 += widen(acc16)
    0x0c, 0, 0x0b, 0x0b, //                                       continue } }
    ...get(ACC32), ...simd(0x1b), 0, //                           lane 0
    ...get(ACC32), ...simd(0x1b), 1, I32_ADD, //                  + lane 1
    ...get(ACC32), ...simd(0x1b), 2, I32_ADD, //                  + lane 2
    ...get(ACC32), ...simd(0x1b), 3, I32_ADD, //                  + lane 3
    0x0b,
  ];
  const func = [2, 2, 0x7f, 4, 0x7b, ...body]; // locals: 2 × i32 (i, k), 4 × v128
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7f]), // (i32, i32, i32) → i32
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, 1]), // imported memory, min 1 page
    ...section(3, [1, 0]),
    ...section(7, [2, ...name('sad'), 0x00, 0, ...name('mem'), 0x02, 0]),
    ...section(10, [1, ...leb(func.length), ...func]),
  ]);
}

const CHUNK = 1 << 22;

/**
 * Keeps the last two frames in WebAssembly memory (two slots, used alternately) and returns the
 * sum of absolute differences between each new frame and the one before it.
 */
export interface AbsDiffSummer {
  /** Copies `data` in; returns Σ|data − previous| (null for the first frame). */
  push(data: Uint8Array): number | null;
  /**
   * One band of a frame of `frameLength` bytes, at byte `offset` (bands in order, the first at 0):
   * compares it with the same bytes of the previous frame, then keeps it in that frame's place,
   * so only one frame and one band are held. Returns Σ|frame − previous| with the last band
   * (null for the first frame, and before the last band).
   */
  pushBand(data: Uint8Array, offset: number, frameLength: number, last: boolean): number | null;
}

interface SadExports {
  sad: (a: number, b: number, n: number) => number;
}

interface WasmMemory {
  buffer: ArrayBuffer;
}

/** The part of the WebAssembly JS API used here (this package compiles without DOM typings). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

/** The compiled module, built once per thread on first use; null when WebAssembly is unusable. */
let compiled: { wasm: WasmApi; module: object } | null | undefined;

function compiledModule(): { wasm: WasmApi; module: object } | null {
  if (compiled !== undefined) return compiled;
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  try {
    compiled = wasm ? { wasm, module: new wasm.Module(sadModuleBytes()) } : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

export function createAbsDiffSummer(): AbsDiffSummer | null {
  const c = compiledModule();
  if (!c) return null;
  // An instance (with its own memory) per run; the module is compiled once. The memory is
  // imported so that it can be replaced by a larger one (contents copied) instead of grown:
  // growing detaches the old buffer, and the first detach in a thread makes V8's optimised
  // typed-array code check for detached buffers from then on (every method of the worker slows).
  let memory: WasmMemory;
  let exports: SadExports;
  const instantiate = (pages: number): void => {
    memory = new c.wasm.Memory({ initial: pages });
    exports = new c.wasm.Instance(c.module, { env: { mem: memory } }).exports as SadExports;
  };
  try {
    instantiate(1);
  } catch {
    return null;
  }
  /** At least `bytes` of memory, the current contents kept. */
  const ensure = (bytes: number): void => {
    const have = memory.buffer.byteLength;
    if (bytes <= have) return;
    const old = new Uint8Array(memory.buffer);
    instantiate(Math.ceil(bytes / 65536));
    new Uint8Array(memory.buffer).set(old);
  };
  let slotSize = 0;
  let current = -1; // slot of the last frame, −1 before the first
  let length = 0;
  const sadRange = (a: number, b: number, n: number, mem: Uint8Array): number => {
    const vec = n - (n % 16);
    let total = 0;
    for (let off = 0; off < vec; off += CHUNK) {
      total += exports.sad(a + off, b + off, Math.min(CHUNK, vec - off)) >>> 0;
    }
    for (let i = vec; i < n; i++) total += Math.abs(mem[a + i]! - mem[b + i]!);
    return total;
  };
  // Band mode: the previous frame at [0, frameLength), the incoming band after it.
  let bandFrame = -1; // frame length of the kept frame, −1 before the first complete frame
  let bandTotal = 0;
  return {
    pushBand(data: Uint8Array, offset: number, frameLength: number, last: boolean): number | null {
      if (offset === 0) {
        if (bandFrame !== frameLength) bandFrame = -1;
        bandTotal = 0;
      }
      const bandAt = Math.ceil(frameLength / 16) * 16;
      ensure(bandAt + data.length);
      const mem = new Uint8Array(memory.buffer);
      if (bandFrame >= 0) {
        mem.set(data, bandAt);
        bandTotal += sadRange(offset, bandAt, data.length, mem);
      }
      mem.set(data, offset);
      if (!last) return null;
      const had = bandFrame >= 0;
      bandFrame = frameLength;
      return had ? bandTotal : null;
    },
    push(data: Uint8Array): number | null {
      if (current < 0 || data.length !== length) {
        length = data.length;
        slotSize = Math.ceil(length / 16) * 16;
        ensure(2 * slotSize);
        current = -1;
      }
      const next = current === 0 ? 1 : 0;
      const mem = new Uint8Array(memory.buffer);
      mem.set(data, next * slotSize);
      if (current < 0) {
        current = next;
        return null;
      }
      const a = current * slotSize;
      const b = next * slotSize;
      const vec = length - (length % 16);
      let total = 0;
      for (let off = 0; off < vec; off += CHUNK) {
        total += exports.sad(a + off, b + off, Math.min(CHUNK, vec - off)) >>> 0;
      }
      for (let i = vec; i < length; i++) total += Math.abs(mem[a + i]! - mem[b + i]!);
      current = next;
      return total;
    },
  };
}
