/**
 * Reads the LAION aesthetic head (`sa_0_4_vit_l_14_linear.pth`, a PyTorch state dict of
 * `nn.Linear(768, 1)`) without Python: the file is a zip archive (torch ≥ 1.6 format) whose
 * `<name>/data/<key>` entries hold the raw little-endian float32 storages; the weight is the
 * 768-value storage and the bias the 1-value storage. Only stored (uncompressed) entries occur in
 * torch archives. The legacy (pre-zip) format is read too: it ends with each storage as an int64
 * element count followed by the raw values.
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../../contract.js';

export interface LinearHead {
  weight: Float32Array;
  bias: number;
}

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}
function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

interface ZipEntry {
  name: string;
  data: Uint8Array;
}

function zipEntries(b: Uint8Array): ZipEntry[] {
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--) {
    if (u32(b, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no zip end-of-central-directory record');
  const count = u16(b, eocd + 10);
  let p = u32(b, eocd + 16);
  const out: ZipEntry[] = [];
  for (let k = 0; k < count; k++) {
    if (u32(b, p) !== 0x02014b50) throw new Error('bad zip central directory');
    const method = u16(b, p + 10);
    const size = u32(b, p + 20);
    const nameLen = u16(b, p + 28);
    const extraLen = u16(b, p + 30);
    const commentLen = u16(b, p + 32);
    const local = u32(b, p + 42);
    const name = new TextDecoder().decode(b.subarray(p + 46, p + 46 + nameLen));
    if (u32(b, local) !== 0x04034b50) throw new Error(`bad zip local header for ${name}`);
    const start = local + 30 + u16(b, local + 26) + u16(b, local + 28);
    if (method === 0) out.push({ name, data: b.subarray(start, start + size) });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function floats(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, copy.length / 4);
}

/** Parses the bytes of a linear-head checkpoint with `inDim` inputs and one output. */
export function parseLinearHead(bytes: Uint8Array, inDim = 768): LinearHead {
  const isZip = bytes.length > 4 && u32(bytes, 0) === 0x04034b50;
  if (isZip) {
    const storages = zipEntries(bytes).filter((e) => /\/data\/[^/]+$/.test(e.name));
    const w = storages.filter((e) => e.data.length === inDim * 4);
    const b = storages.filter((e) => e.data.length === 4);
    if (w.length !== 1 || b.length !== 1) {
      throw new Error(
        `expected one ${inDim}-value weight and one bias storage, found ${storages.length} storages`,
      );
    }
    return { weight: floats(w[0]!.data), bias: floats(b[0]!.data)[0]! };
  }
  // Legacy format: … [int64 n][n floats] per storage at the end of the file.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = (end: number, n: number): boolean =>
    end - n * 4 - 8 >= 0 && view.getBigInt64(end - n * 4 - 8, true) === BigInt(n);
  const end = bytes.length;
  if (count(end, 1) && count(end - 12, inDim)) {
    const wEnd = end - 12;
    return {
      weight: floats(bytes.subarray(wEnd - inDim * 4, wEnd)),
      bias: floats(bytes.subarray(end - 4, end))[0]!,
    };
  }
  if (count(end, inDim) && count(end - inDim * 4 - 8, 1)) {
    const bEnd = end - inDim * 4 - 8;
    return {
      weight: floats(bytes.subarray(end - inDim * 4, end)),
      bias: floats(bytes.subarray(bEnd - 4, bEnd))[0]!,
    };
  }
  throw new Error('not a PyTorch checkpoint of a linear head');
}

export function loadLinearHead(path: string, inDim = 768): LinearHead {
  try {
    return parseLinearHead(readFileSync(path), inDim);
  } catch (err) {
    throw new EngineError(
      'model_unavailable',
      `cannot read the aesthetic head ${path}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
