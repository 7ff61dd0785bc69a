/**
 * The DEMO generator's scene: a deterministic description of moving coloured shapes derived from a
 * prompt, a seed and optional auxiliary info. It is a procedural toy that lets a newcomer run a
 * complete Bench run without a GPU; it is not a text-to-video model and its clips do not depict
 * their prompts.
 *
 * Determinism: every parameter comes from a SHA-256 digest of (prompt, seed, auxiliary) fed to a
 * small seeded PRNG, so the same inputs give the same frames on every machine.
 */
import { createHash } from 'node:crypto';

export type Rgb = readonly [number, number, number];

export interface DemoShape {
  kind: 'disc' | 'box' | 'ring';
  colour: Rgb;
  /** Radius (disc, ring) or half side (box), in pixels. */
  size: number;
  /** Start position, in pixels. */
  x: number;
  y: number;
  /** Velocity, in pixels per frame (the shape bounces off the frame edges). */
  vx: number;
  vy: number;
}

export interface DemoScene {
  width: number;
  height: number;
  /** Background: a vertical gradient from `top` to `bottom`, drifting by `drift` px per frame. */
  top: Rgb;
  bottom: Rgb;
  drift: number;
  shapes: DemoShape[];
}

/** Named colours the scene honours when a prompt word or `auxiliary.color` names one. */
export const NAMED_COLOURS: Readonly<Record<string, Rgb>> = {
  red: [220, 40, 40],
  orange: [240, 140, 30],
  yellow: [240, 220, 40],
  green: [40, 180, 70],
  blue: [40, 90, 220],
  purple: [140, 60, 200],
  pink: [240, 120, 180],
  white: [240, 240, 240],
  black: [20, 20, 20],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  brown: [130, 80, 40],
  cyan: [40, 200, 220],
};

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'in',
  'on',
  'at',
  'to',
  'and',
  'with',
  'is',
  'are',
  'its',
  'his',
  'her',
  'their',
  'by',
  'for',
  'from',
  'into',
  'while',
  'over',
  'under',
  'near',
]);

/** mulberry32 over a 32-bit state: small, fast and identical on every platform. */
function prng(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A saturated colour whose hue comes from the word's digest. */
function hueColour(word: string): Rgb {
  const d = digest(`hue\0${word}`);
  const hue = (d.readUInt16BE(0) / 65536) * 6;
  const i = Math.floor(hue);
  const f = hue - i;
  const v = 230;
  const p = 50;
  const q = Math.round(v - (v - p) * f);
  const t = Math.round(p + (v - p) * f);
  const table: Rgb[] = [
    [v, t, p],
    [q, v, p],
    [p, v, t],
    [p, q, v],
    [t, p, v],
    [v, p, q],
  ];
  return table[i % 6]!;
}

function darken(c: Rgb, factor: number): Rgb {
  return [Math.round(c[0] * factor), Math.round(c[1] * factor), Math.round(c[2] * factor)];
}

/** Lower-case content words of the prompt, in order, without repeats or stop words. */
export function promptWords(prompt: string): string[] {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words) {
    if (STOP_WORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/** Auxiliary info as stable text (keys sorted), so key order does not change the clip. */
function auxiliaryText(auxiliary: Readonly<Record<string, string>> | undefined): string {
  if (!auxiliary) return '';
  return Object.keys(auxiliary)
    .sort()
    .map((k) => `${k}=${auxiliary[k] ?? ''}`)
    .join('\n');
}

/**
 * The scene for (prompt, seed, auxiliary): one shape per content word (two to five shapes), named
 * colours honoured (from the words and `auxiliary.color`), speeds from the digest and the seed,
 * and a background from `auxiliary.scene` (or the prompt).
 */
export function demoScene(
  prompt: string,
  seed: number,
  auxiliary: Readonly<Record<string, string>> | undefined,
  width: number,
  height: number,
): DemoScene {
  const d = digest(`vesta-demo-v1\0${prompt}\0${seed}\0${auxiliaryText(auxiliary)}`);
  const random = prng(d.readUInt32BE(0) ^ d.readUInt32BE(4));
  const words = promptWords(prompt);
  const sceneWord = auxiliary?.scene ?? words[words.length - 1] ?? prompt;
  const top = darken(hueColour(`sky\0${sceneWord}`), 0.55);
  const bottom = darken(hueColour(`ground\0${sceneWord}`), 0.35);

  const named = words.flatMap((w) => (NAMED_COLOURS[w] ? [NAMED_COLOURS[w]] : []));
  const auxColour = auxiliary?.color ? NAMED_COLOURS[auxiliary.color.toLowerCase()] : undefined;
  const palette: Rgb[] = [];
  if (auxColour) palette.push(auxColour);
  palette.push(...named);
  const shapeWords = words.filter((w) => !NAMED_COLOURS[w]);
  const count = Math.max(2, Math.min(5, shapeWords.length || 2));
  const kinds: DemoShape['kind'][] = ['disc', 'box', 'ring'];
  const shapes: DemoShape[] = [];
  const minSide = Math.min(width, height);
  for (let i = 0; i < count; i++) {
    const word = shapeWords[i] ?? `${prompt}\0${i}`;
    const colour = palette[i] ?? hueColour(word);
    const size = Math.round(minSide * (0.08 + 0.1 * random()));
    const speed = 1 + (word.length % 5) * 0.6 + 2 * random();
    const angle = 2 * Math.PI * random();
    shapes.push({
      kind: kinds[Math.floor(random() * kinds.length)] ?? 'disc',
      colour,
      size,
      x: size + random() * (width - 2 * size),
      y: size + random() * (height - 2 * size),
      vx: speed * Math.cos(angle),
      vy: speed * Math.sin(angle),
    });
  }
  return { width, height, top, bottom, drift: 0.5 + random(), shapes };
}

/** Position of a shape at frame `i`: straight motion reflected off the frame's edges. */
function bounce(start: number, velocity: number, i: number, min: number, max: number): number {
  const span = max - min;
  if (span <= 0) return min;
  const raw = start - min + velocity * i;
  const period = 2 * span;
  const m = ((raw % period) + period) % period;
  return min + (m <= span ? m : period - m);
}

/** Draws frame `i` of `scene` into `frame` (RGB24, row-major, `width*height*3` bytes). */
export function drawDemoFrame(scene: DemoScene, i: number, frame: Uint8Array): void {
  const { width: w, height: h, top, bottom } = scene;
  const shift = scene.drift * i;
  for (let y = 0; y < h; y++) {
    const t = ((((y + shift) % h) + h) % h) / (h - 1 || 1);
    const band = Math.abs(2 * t - 1);
    const r = top[0] + (bottom[0] - top[0]) * band;
    const g = top[1] + (bottom[1] - top[1]) * band;
    const b = top[2] + (bottom[2] - top[2]) * band;
    let p = y * w * 3;
    for (let x = 0; x < w; x++) {
      frame[p++] = r;
      frame[p++] = g;
      frame[p++] = b;
    }
  }
  for (const s of scene.shapes) {
    const cx = bounce(s.x, s.vx, i, s.size, w - s.size);
    const cy = bounce(s.y, s.vy, i, s.size, h - s.size);
    const x0 = Math.max(0, Math.floor(cx - s.size));
    const x1 = Math.min(w - 1, Math.ceil(cx + s.size));
    const y0 = Math.max(0, Math.floor(cy - s.size));
    const y1 = Math.min(h - 1, Math.ceil(cy + s.size));
    const r2 = s.size * s.size;
    const inner2 = (s.size * 0.55) ** 2;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const dx = x - cx;
        const dy = y - cy;
        const d2 = dx * dx + dy * dy;
        const inside = s.kind === 'box' ? true : s.kind === 'disc' ? d2 <= r2 : d2 <= r2 && d2 >= inner2;
        if (!inside) continue;
        const p = (y * w + x) * 3;
        frame[p] = s.colour[0];
        frame[p + 1] = s.colour[1];
        frame[p + 2] = s.colour[2];
      }
    }
  }
}
