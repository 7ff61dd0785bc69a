/**
 * In-memory synthetic clips for the validation suite: a textured scene with a coloured subject,
 * rendered with sub-pixel motion, then degraded (flicker, noise, blur, jitter, dropped frames,
 * freeze, blockiness) at graded severities. Deterministic (seeded PRNG).
 */
import type { Frame, VideoProbe } from '../src/contract.js';
import type { DimensionMethod, MethodOutcome } from '../src/method-contract.js';

export const W = 240;
export const H = 160;

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(x: number, y: number): number {
  let h = (Math.imul(x, 374761393) + Math.imul(y, 668265263)) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

function valueNoise(x: number, y: number, s: number): number {
  const X = x / s;
  const Y = y / s;
  const x0 = Math.floor(X);
  const y0 = Math.floor(Y);
  const fx = X - x0;
  const fy = Y - y0;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const a = hash(x0, y0);
  const b = hash(x0 + 1, y0);
  const c = hash(x0, y0 + 1);
  const d = hash(x0 + 1, y0 + 1);
  const top = a + sx * (b - a);
  const bottom = c + sx * (d - c);
  return top + sy * (bottom - top);
}

/** Float RGB scene: textured background shifted by (bx, by), a disc subject centred at (sx, sy). */
export function renderScene(bx: number, by: number, sx: number, sy: number): Float32Array {
  const out = new Float32Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const X = x - bx;
      const Y = y - by;
      const n =
        0.4 * valueNoise(X, Y, 24) +
        0.25 * valueNoise(X + 77, Y, 9) +
        0.2 * valueNoise(X, Y + 31, 4) +
        0.15 * valueNoise(X + 5, Y + 3, 1.5);
      const tile = (Math.floor(X / 23) + Math.floor(Y / 23)) % 2 === 0 ? 30 : -30; // hard edges
      let r = 20 + 190 * n + tile;
      let g = 70 + 140 * valueNoise(X + 13, Y + 5, 30) * 0.5 + 100 * n * 0.6;
      let b = 60 + 120 * (1 - n);
      const d = Math.hypot(x - sx, y - sy);
      const inside = Math.min(1, Math.max(0, 28 - d));
      if (inside > 0) {
        const stripe = 0.5 + 0.5 * Math.sin((x - sx) * 0.6);
        r = r * (1 - inside) + inside * (200 + 40 * stripe);
        g = g * (1 - inside) + inside * (60 + 50 * stripe);
        b = b * (1 - inside) + inside * 40;
      }
      const o = (y * W + x) * 3;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
    }
  }
  return out;
}

export function toFrame(img: Float32Array, index: number, fps = 24): Frame {
  const data = new Uint8Array(img.length);
  for (let i = 0; i < img.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(img[i]!)));
  return { index, timeSeconds: index / fps, width: W, height: H, channels: 3, data };
}

export function probeFor(frames: number, fps = 24): VideoProbe {
  return {
    container: 'synthetic',
    codec: 'rawvideo',
    width: W,
    height: H,
    rotation: 0,
    displayWidth: W,
    displayHeight: H,
    fps,
    frameCount: frames,
    fpsAssumed: false,
    frameCountExact: true,
    durationSeconds: frames / fps,
    bitRate: null,
    sizeBytes: 0,
  };
}

/** A moving clip: background pans at `speed` px/frame, subject moves at 1.5× that (positions per frame). */
export function movingPositions(frames: number, speed: number): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  for (let t = 0; t < frames; t++) out.push([speed * t, 0.3 * speed * t, 90 + 1.5 * speed * t, 80]);
  return out;
}

export function renderClip(positions: Array<[number, number, number, number]>): Float32Array[] {
  return positions.map(([a, b, c, d]) => renderScene(a, b, c, d));
}

export function addNoise(img: Float32Array, sigma: number, rand: () => number): Float32Array {
  const out = new Float32Array(img.length);
  for (let i = 0; i < img.length; i++) {
    // Box–Muller.
    const u = Math.max(1e-12, rand());
    const v = rand();
    out[i] = img[i]! + sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  return out;
}

export function boxBlur(img: Float32Array, r: number): Float32Array {
  if (r <= 0) return img;
  const tmp = new Float32Array(img.length);
  const out = new Float32Array(img.length);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let k = -r; k <= r; k++) s += img[(y * W + Math.min(W - 1, Math.max(0, x + k))) * 3 + c]!;
        tmp[(y * W + x) * 3 + c] = s / (2 * r + 1);
      }
    }
  }
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let k = -r; k <= r; k++) s += tmp[(Math.min(H - 1, Math.max(0, y + k)) * W + x) * 3 + c]!;
        out[(y * W + x) * 3 + c] = s / (2 * r + 1);
      }
    }
  }
  return out;
}

/** Blend every 8×8 block towards its mean (α = 1: pure blocks, as heavy DCT quantisation does). */
export function blockify(img: Float32Array, alpha: number): Float32Array {
  const out = Float32Array.from(img);
  if (alpha <= 0) return out;
  for (let by = 0; by < H; by += 8) {
    for (let bx = 0; bx < W; bx += 8) {
      for (let c = 0; c < 3; c++) {
        let s = 0;
        let n = 0;
        for (let y = by; y < Math.min(H, by + 8); y++) {
          for (let x = bx; x < Math.min(W, bx + 8); x++) {
            s += img[(y * W + x) * 3 + c]!;
            n++;
          }
        }
        const m = s / n;
        for (let y = by; y < Math.min(H, by + 8); y++) {
          for (let x = bx; x < Math.min(W, bx + 8); x++) {
            const o = (y * W + x) * 3 + c;
            out[o] = (1 - alpha) * img[o]! + alpha * m;
          }
        }
      }
    }
  }
  return out;
}

export function scale(img: Float32Array, gain: number): Float32Array {
  const out = new Float32Array(img.length);
  for (let i = 0; i < img.length; i++) out[i] = img[i]! * gain;
  return out;
}

export function runMethod(method: DimensionMethod, imgs: Float32Array[], fps = 24): MethodOutcome {
  const probe = probeFor(imgs.length, fps);
  const run = method.start({ probe });
  imgs.forEach((img, i) => run.push(toFrame(img, i, fps)));
  return run.finish();
}
