import { describe, expect, it } from 'vitest';
import { colourLayoutDescriptor, cosine, frameDescriptor } from '../src/image/descriptor.js';
import { backgroundConsistencyLite, subjectConsistencyLite } from '../src/dimensions/consistency.js';
import { shrinkRgb } from '../src/dimensions/working.js';
import type { RgbImage } from '../src/image/types.js';
import { H, renderScene, runMethod, W } from './validation-scenes.js';

const image = (data: Float32Array): RgbImage => ({ width: W, height: H, data });
/** The descriptor's working size (longer side ≤ 64), as the method computes it. */
const small = (data: Float32Array): RgbImage => shrinkRgb(image(data), 64);

/** The scene with its red and blue channels swapped: the same layout and texture, another palette. */
function swapped(img: Float32Array): Float32Array {
  const out = new Float32Array(img.length);
  for (let i = 0; i < img.length; i += 3) {
    out[i] = img[i + 2]!;
    out[i + 1] = img[i + 1]!;
    out[i + 2] = img[i]!;
  }
  return out;
}

describe('colour-layout descriptor (background consistency lite v2)', () => {
  it('is 1 for the same frame, high for a small shift, low for an unrelated frame', () => {
    const a = small(renderScene(0, 0, 90, 80));
    const shifted = small(renderScene(3, 0, 93, 80));
    const other = small(swapped(renderScene(500, 300, 170, 40)));
    for (const kind of ['centre', 'border'] as const) {
      const da = colourLayoutDescriptor(a, kind);
      expect(cosine(da, da)).toBeCloseTo(1, 6);
      const near = cosine(da, colourLayoutDescriptor(shifted, kind));
      const far = cosine(da, colourLayoutDescriptor(other, kind));
      expect(near).toBeGreaterThan(0.98);
      expect(far).toBeLessThan(near - 0.1);
    }
  });

  it('changes gradually as content crosses cell boundaries (soft cells), more smoothly than version 1', () => {
    // The background pans 1 px per frame across 64 px, more than one cell of the 4×4 grid at 240 px.
    const frames = Array.from({ length: 65 }, (_, t) => small(renderScene(t, 0, 120, 80)));
    const worst = (f: (img: RgbImage) => Float32Array): number => {
      let min = 1;
      let prev = f(frames[0]!);
      for (let t = 1; t < frames.length; t++) {
        const d = f(frames[t]!);
        min = Math.min(min, cosine(prev, d));
        prev = d;
      }
      return min;
    };
    const v2 = worst((img) => colourLayoutDescriptor(img, 'border'));
    const v1 = worst((img) => frameDescriptor(img, 'border'));
    expect(v2).toBeGreaterThan(0.99);
    expect(v2).toBeGreaterThan(v1);
  });

  it('costs a camera pan less than a cut to another scene for a quarter of the clip (the method end to end)', () => {
    const n = 24;
    // Pan: the background slides a quarter of the frame width over the clip, the subject stays.
    const pan = Array.from({ length: n }, (_, t) => renderScene((t * W) / 4 / (n - 1), 0, 120, 80));
    // Cut: the still scene, then for the last quarter another scene (other palette and layout).
    const still = renderScene(0, 0, 120, 80);
    const other = swapped(renderScene(400, 250, 60, 50));
    const cut = Array.from({ length: n }, (_, t) => (t < (3 * n) / 4 ? still : other));
    const panValue = runMethod(backgroundConsistencyLite, pan).value;
    const cutValue = runMethod(backgroundConsistencyLite, cut).value;
    expect(1 - panValue).toBeLessThan(1 - cutValue);
  });

  it('reports its descriptor and version; subject consistency keeps version 1', () => {
    const out = runMethod(backgroundConsistencyLite, [renderScene(0, 0, 90, 80), renderScene(2, 0, 92, 80)]);
    expect(out.details).toMatchObject({ descriptor: 'colour-layout', weighting: 'border', pairs: 1 });
    expect(backgroundConsistencyLite.version).toBe('2');
    expect(subjectConsistencyLite.version).toBe('1');
    const sc = runMethod(subjectConsistencyLite, [renderScene(0, 0, 90, 80), renderScene(2, 0, 92, 80)]);
    expect(sc.details).toMatchObject({ descriptor: 'colour+orientation', weighting: 'centre' });
  });
});
