/**
 * Each model-backed dimension's formula, end to end on fixture models run by onnxruntime-node:
 * the method gets synthetic frames through a real `JobInference` (store-resolved files, shared
 * sessions, batching), and the test computes the expected value independently from the fixture's
 * plain-JS reference forward pass and VBench's formula written out here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuxiliaryInfo, Frame, VideoProbe } from '../src/contract.js';
import { JobInference } from '../src/inference/job.js';
import type { ModelFiles } from '../src/inference/job.js';
import { SessionCache } from '../src/inference/sessions.js';
import { resolveInference } from '../src/inference/settings.js';
import type { AnyMethod, MethodOutcome } from '../src/method-contract.js';
import { createModelStore } from '../src/models/index.js';
import { applyTransform, TRANSFORMS } from '../src/preprocess/transforms.js';
import type { TransformId } from '../src/preprocess/transforms.js';
import { loadClipTokenizer } from '../src/text/clip-tokenizer.js';
import { getMethod } from '../src/dimensions/index.js';
import { ACTION_LABELS, SCENE_LABELS } from '../src/dimensions/model/labels.js';
import { colourName, pixelColour } from '../src/dimensions/model/colour.js';
import { smallRgb } from '../src/dimensions/working.js';
import { DETR_LABELS, fixtureModelSet, writeFixtureModelDir } from './helpers/model-dir.js';

const root = mkdtempSync(join(tmpdir(), 'vesta-model-dims-'));
const set = fixtureModelSet();
const models: Record<string, ModelFiles> = {};
let cache: SessionCache;

beforeAll(async () => {
  const manifest = writeFixtureModelDir(join(root, 'local'), set);
  const store = createModelStore({
    cacheDir: join(root, 'cache'),
    localDir: join(root, 'local'),
    offline: true,
    manifest,
  });
  for (const m of manifest) {
    const installed = await store.ensure(m.id);
    models[m.id] = { id: installed.id, files: installed.files, ref: installed.ref };
  }
  cache = new SessionCache(resolveInference({}));
});
afterAll(async () => {
  await cache.close();
});

function probe(width: number, height: number, frames: number, fps = 8): VideoProbe {
  return {
    container: 'mov',
    codec: 'h264',
    width,
    height,
    rotation: 0,
    displayWidth: width,
    displayHeight: height,
    fps,
    frameCount: frames,
    fpsAssumed: false,
    frameCountExact: true,
    durationSeconds: frames / fps,
    bitRate: null,
    sizeBytes: 1,
  };
}

/** A moving two-colour scene: a square of `colour` sliding over a gradient. */
function clipFrames(
  count: number,
  width: number,
  height: number,
  colour: [number, number, number] = [30, 60, 220],
): Frame[] {
  return Array.from({ length: count }, (_, t) => {
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const o = (y * width + x) * 3;
        const inSquare =
          x >= 4 + 3 * t && x < 4 + 3 * t + width / 2 && y >= height / 4 && y < (3 * height) / 4;
        data.set(inSquare ? colour : [(x * 4 + t * 9) % 256, (y * 5) % 256, ((x + y) * 3) % 256], o);
      }
    }
    return { index: t, timeSeconds: t / 8, width, height, channels: 3, data };
  });
}

async function run(
  dimension: string,
  methodId: string,
  frames: Frame[],
  extra: { prompt?: string; auxiliary?: AuxiliaryInfo } = {},
  batch = 4,
): Promise<MethodOutcome> {
  const method = getMethod(dimension as never, methodId) as AnyMethod;
  expect(method, `${dimension}/${methodId}`).toBeDefined();
  const inference = new JobInference(cache, models, batch);
  try {
    const f0 = frames[0]!;
    const r = method.start({ probe: probe(f0.width, f0.height, frames.length), inference, ...extra });
    for (const f of frames) await r.push(f);
    return await r.finish();
  } finally {
    inference.close();
  }
}

const x = (t: TransformId, f: Frame) => {
  const o = applyTransform(TRANSFORMS[t], f);
  return { data: o.data, dims: [1, 3, o.height, o.width] };
};
const norm = (v: ArrayLike<number>): number[] => {
  const n = Math.hypot(...Array.from(v));
  return Array.from(v, (a) => a / n);
};
const cos = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  const na = norm(a);
  const nb = norm(b);
  return na.reduce((s, v, i) => s + v * nb[i]!, 0);
};
const clipImage = (f: Frame) => set.clipVision.reference(x('clip224', f)).image_embeds.data;
const softmax = (v: number[]): number[] => {
  const m = Math.max(...v);
  const e = v.map((a) => Math.exp(a - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((a) => a / s);
};
function clipText(texts: string[]): Float32Array[] {
  const tok = loadClipTokenizer(models['clip-vit-b32']!.files.tokenizer!);
  const b = tok.encode(texts);
  const out = set.clipText.reference({ data: b.ids, dims: [b.count, b.length] }).text_embeds;
  const e = out.dims[1]!;
  return texts.map((_, i) => out.data.slice(i * e, (i + 1) * e));
}
/** VBench §2.1: mean over t ≥ 1 of ½[max(0, cos(f_{t−1}, f_t)) + max(0, cos(f_0, f_t))]. */
function vbenchConsistency(f: ArrayLike<number>[]): number {
  let s = 0;
  for (let t = 1; t < f.length; t++)
    s += 0.5 * (Math.max(0, cos(f[t - 1]!, f[t]!)) + Math.max(0, cos(f[0]!, f[t]!)));
  return s / (f.length - 1);
}

describe('model-backed dimensions on fixture models', () => {
  const frames = clipFrames(6, 64, 48);

  it('subject_consistency (vbench): DINO CLS features of every frame, VBench formula', async () => {
    const out = await run('subject_consistency', 'vbench', frames);
    const feats = frames.map((f) => {
      const r = set.dino.reference(x('dino224', f)).last_hidden_state;
      return r.data.slice(0, r.dims[2]);
    });
    expect(out.value).toBeCloseTo(vbenchConsistency(feats), 5);
    expect(out.indices).toEqual([0, 1, 2, 3, 4, 5]);
    expect(out.models).toEqual([
      { id: 'dino-vitb16', revision: models['dino-vitb16']!.ref.revision, precision: 'fp32' },
    ]);
    expect(out.details).toMatchObject({ inputWidth: 298, inputHeight: 224, pairs: 5 }); // 224·64/48 = 298.7
  });

  it('background_consistency (vbench): CLIP image embeddings, same formula', async () => {
    const out = await run('background_consistency', 'vbench', frames);
    expect(out.value).toBeCloseTo(vbenchConsistency(frames.map(clipImage)), 5);
  });

  it('aesthetic_quality (vbench): normalised CLIP L/14 embedding → LAION linear head → ÷10, mean', async () => {
    const out = await run('aesthetic_quality', 'vbench', frames);
    const per = frames.map((f) => {
      const e = norm(set.clipL14.reference(x('clip224', f)).image_embeds.data);
      return (e.reduce((s, v, i) => s + v * set.head.weight[i]!, 0) + set.head.bias) / 10;
    });
    expect(out.value).toBeCloseTo(per.reduce((a, b) => a + b, 0) / per.length, 5);
    expect(out.models?.map((m) => m.id)).toEqual(['clip-vit-l14', 'laion-aesthetic-v1-linear']);
  });

  it('appearance_style (vbench): mean over frames of cos(image, style phrase)', async () => {
    const out = await run('appearance_style', 'vbench', frames, {
      auxiliary: { appearance_style: 'oil painting' },
    });
    const [style] = clipText(['oil painting']);
    const sims = frames.map((f) => cos(clipImage(f), style!));
    expect(out.value).toBeCloseTo(sims.reduce((a, b) => a + b, 0) / sims.length, 5);
  });

  it('imaging_quality (clip-iqa): softmax(100·cos) of "Good photo." vs "Bad photo.", mean', async () => {
    const out = await run('imaging_quality', 'clip-iqa', frames);
    const [good, bad] = clipText(['Good photo.', 'Bad photo.']);
    const p = frames.map(clipImage).map((img) => softmax([100 * cos(img, good!), 100 * cos(img, bad!)])[0]!);
    expect(out.value).toBeCloseTo(p.reduce((a, b) => a + b, 0) / p.length, 5);
  });

  it('overall_consistency and temporal_style (clip): cos(mean of normalised frame embeddings, prompt)', async () => {
    const prompt = 'a cat photo';
    const [t] = clipText([prompt]);
    const mean = new Array<number>(t!.length).fill(0);
    for (const f of frames) norm(clipImage(f)).forEach((v, i) => (mean[i] = mean[i]! + v));
    const expected = cos(mean, t!);
    for (const dim of ['overall_consistency', 'temporal_style']) {
      const out = await run(dim, 'clip', frames, { prompt });
      expect(out.value, dim).toBeCloseTo(expected, 5);
    }
  });

  it('scene (clip): fraction of frames where the requested scene ranks first among the labels', async () => {
    const texts = clipText(SCENE_LABELS.map((l) => `a photo of a ${l}.`));
    const best = frames.map(clipImage).map((img) => {
      const p = softmax(texts.map((t) => 100 * cos(img, t)));
      return SCENE_LABELS[p.indexOf(Math.max(...p))]!;
    });
    const target = best[0]!;
    const out = await run('scene', 'clip', frames, { auxiliary: { scene: target } });
    expect(out.value).toBeCloseTo(best.filter((b) => b === target).length / frames.length, 10);
    expect(out.value).toBeGreaterThan(0);
  });

  it('human_action (clip): 1 when the requested action has the highest mean probability', async () => {
    const texts = clipText(ACTION_LABELS.map((l) => `a person is ${l}.`));
    const avg = new Array<number>(texts.length).fill(0);
    for (const img of frames.map(clipImage))
      softmax(texts.map((t) => 100 * cos(img, t))).forEach((v, k) => (avg[k] = avg[k]! + v));
    const top = ACTION_LABELS[avg.indexOf(Math.max(...avg))]!;
    const other = ACTION_LABELS.find((l) => l !== top)!;
    expect((await run('human_action', 'clip', frames, { auxiliary: { action: top } })).value).toBe(1);
    expect((await run('human_action', 'clip', frames, { auxiliary: { action: other } })).value).toBe(0);
  });

  it('reads missing auxiliary info and prompts as stable errors', async () => {
    await expect(run('appearance_style', 'vbench', frames)).rejects.toMatchObject({
      code: 'missing_auxiliary',
    });
    await expect(run('overall_consistency', 'clip', frames)).rejects.toMatchObject({
      code: 'missing_prompt',
    });
    await expect(
      run('spatial_relationship', 'detr', frames, { auxiliary: { relationship: 'on the left of' } }),
    ).rejects.toMatchObject({ code: 'missing_auxiliary' });
  });
});

describe('detection dimensions (detr) on the fixture detector', () => {
  const frames = clipFrames(4, 64, 48, [220, 30, 30]);
  /** Reference detections per frame: labels and pixel boxes, VBench threshold 0.5. */
  const detections = frames.map((f) => {
    const input = x('detr800', f);
    const ref = set.detr.reference(input);
    const [, q, c] = ref.logits.dims as [number, number, number];
    const found: Array<{ label: string; box: [number, number, number, number] }> = [];
    for (let k = 0; k < q; k++) {
      const p = softmax(Array.from(ref.logits.data.slice(k * c, (k + 1) * c)));
      let best = 0;
      for (let j = 1; j < c - 1; j++) if (p[j]! > p[best]!) best = j;
      if (p[best]! > 0.5) {
        const [cx, cy, w, h] = Array.from(ref.pred_boxes.data.slice(k * 4, k * 4 + 4)) as [
          number,
          number,
          number,
          number,
        ];
        found.push({
          label: DETR_LABELS[best]!,
          box: [(cx - w / 2) * 64, (cy - h / 2) * 48, (cx + w / 2) * 64, (cy + h / 2) * 48],
        });
      }
    }
    return found;
  });
  const labelsIn = (i: number): Set<string> => new Set(detections[i]!.map((d) => d.label));
  const counts = DETR_LABELS.map((l) => detections.filter((_, i) => labelsIn(i).has(l)).length);

  it('the fixture detects something (the checks below are not vacuous)', () => {
    expect(Math.max(...counts)).toBeGreaterThan(0);
  });

  it('object_class: fraction of frames containing the object', async () => {
    for (const [i, label] of DETR_LABELS.entries()) {
      const out = await run('object_class', 'detr', frames, { auxiliary: { object: label } });
      expect(out.value, label).toBeCloseTo(counts[i]! / frames.length, 10);
    }
  });

  it('multiple_objects: fraction of frames containing both objects ("A and B")', async () => {
    const [a, b] = [...DETR_LABELS].sort(
      (p, q) => counts[DETR_LABELS.indexOf(q)]! - counts[DETR_LABELS.indexOf(p)]!,
    );
    const expected =
      frames.filter((_, i) => labelsIn(i).has(a!) && labelsIn(i).has(b!)).length / frames.length;
    const out = await run('multiple_objects', 'detr', frames, { auxiliary: { object: `${a} and ${b}` } });
    expect(out.value).toBeCloseTo(expected, 10);
  });

  it("spatial_relationship: VBench's best pair score per frame, mean over frames", async () => {
    const iou = (p: number[], q: number[]): number => {
      const ix = Math.max(0, Math.min(p[2]!, q[2]!) - Math.max(p[0]!, q[0]!));
      const iy = Math.max(0, Math.min(p[3]!, q[3]!) - Math.max(p[1]!, q[1]!));
      const u = (p[2]! - p[0]!) * (p[3]! - p[1]!) + (q[2]! - q[0]!) * (q[3]! - q[1]!) - ix * iy;
      return u > 0 ? (ix * iy) / u : 0;
    };
    const a = DETR_LABELS[counts.indexOf(Math.max(...counts))]!;
    for (const relation of ['on the left of', 'on the top of']) {
      const scores = detections.map((d) => {
        const boxes = d.filter((e) => e.label === a).map((e) => e.box);
        let best = 0;
        for (let i = 0; i < boxes.length; i++) {
          for (let j = i + 1; j < boxes.length; j++) {
            const [p, q] = [boxes[i]!, boxes[j]!];
            const dx = (q[0] + q[2]) / 2 - (p[0] + p[2]) / 2;
            const dy = (q[1] + q[3]) / 2 - (p[1] + p[3]) / 2;
            const sep = relation.includes('left') ? Math.abs(dx) > Math.abs(dy) : Math.abs(dy) > Math.abs(dx);
            const o = iou(p, q);
            best = Math.max(best, sep ? (o < 0.1 ? 1 : 0.1 / o) : 0);
          }
        }
        return best;
      });
      const out = await run('spatial_relationship', 'detr', frames, {
        auxiliary: { relationship: relation, object_a: a, object_b: a },
      });
      expect(out.value, relation).toBeCloseTo(scores.reduce((s, v) => s + v, 0) / scores.length, 6);
    }
  });

  it('color: frames whose object box is the requested colour among frames with the object', async () => {
    const a = DETR_LABELS[counts.indexOf(Math.max(...counts))]!;
    let nObj = 0;
    const colourFrames = new Map<string, number>();
    detections.forEach((d, i) => {
      const boxes = d.filter((e) => e.label === a);
      if (boxes.length === 0) return;
      nObj++;
      const small = smallRgb(frames[i]!, 128);
      const names = new Set(boxes.map((b) => colourName(small, b.box, small.width / 64)));
      for (const n of names) if (n) colourFrames.set(n, (colourFrames.get(n) ?? 0) + 1);
    });
    for (const colour of ['red', 'blue', 'green']) {
      const out = await run('color', 'detr', frames, { auxiliary: { color: colour, object: a } });
      expect(out.value, colour).toBeCloseTo(nObj > 0 ? (colourFrames.get(colour) ?? 0) / nObj : 0, 10);
      expect(out.details?.objectFrames).toBe(nObj);
    }
    // Without auxiliary.object, VBench's prompt parsing names the object.
    const out = await run('color', 'detr', frames, { prompt: `a red ${a}`, auxiliary: { color: 'red' } });
    expect(out.details?.object).toBe(a);
  });

  it('names colours by HSV buckets', () => {
    expect(pixelColour(220, 30, 30)).toBe('red');
    expect(pixelColour(30, 60, 220)).toBe('blue');
    expect(pixelColour(40, 200, 40)).toBe('green');
    expect(pixelColour(250, 250, 250)).toBe('white');
    expect(pixelColour(10, 10, 10)).toBe('black');
    expect(pixelColour(128, 128, 128)).toBe('gray');
    expect(pixelColour(240, 140, 20)).toBe('orange');
    expect(pixelColour(230, 220, 30)).toBe('yellow');
  });
});

describe('motion dimensions on flow and interpolation fixtures', () => {
  it('dynamic_degree (raft): top-5 % flow magnitude per pair, VBench threshold and count rule', async () => {
    const frames = clipFrames(5, 64, 48);
    const out = await run('dynamic_degree', 'raft', frames);
    const planar = (f: Frame): Float32Array => {
      const p = new Float32Array(3 * 64 * 48);
      for (let i = 0; i < 64 * 48; i++) for (let c = 0; c < 3; c++) p[c * 64 * 48 + i] = f.data[i * 3 + c]!;
      return p;
    };
    const scores: number[] = [];
    for (let t = 1; t < frames.length; t++) {
      const flow = set.flow.reference([
        { data: planar(frames[t - 1]!), dims: [1, 3, 48, 64] },
        { data: planar(frames[t]!), dims: [1, 3, 48, 64] },
      ]);
      const n = 48 * 64;
      const mags = Array.from({ length: n }, (_, i) => Math.hypot(flow.data[i]!, flow.data[n + i]!)).sort(
        (p, q) => q - p,
      );
      const k = Math.floor(0.05 * n);
      scores.push(mags.slice(0, k).reduce((s, v) => s + v, 0) / k);
    }
    const threshold = (6 * 48) / 256;
    const countNum = 1; // round(4·5/16) = round(1.25) = 1
    expect(out.details).toMatchObject({ sampledFrames: 5, countNum, flowWidth: 64, flowHeight: 48 });
    expect(out.details?.threshold).toBeCloseTo(threshold, 10);
    expect(out.details?.maxPairScore as number).toBeCloseTo(Math.max(...scores), 2);
    expect(out.value).toBe(scores.some((s) => s > threshold) ? 1 : 0);
  });

  it('motion_smoothness (rife): odd frames interpolated at t = 0.5, truncated to uint8, (255 − MAE)/255', async () => {
    const frames = clipFrames(5, 64, 64);
    const out = await run('motion_smoothness', 'rife', frames);
    let sum = 0;
    for (const k of [1, 3]) {
      const [a, b, real] = [frames[k - 1]!.data, frames[k + 1]!.data, frames[k]!.data];
      let s = 0;
      for (let i = 0; i < real.length; i++) {
        const pa = a[i]! / 255;
        const pred = Math.min(255, Math.max(0, Math.trunc((pa + 0.5 * (b[i]! / 255 - pa)) * 255)));
        s += Math.abs(pred - real[i]!);
      }
      sum += s / real.length;
    }
    expect(out.value).toBeCloseTo((255 - sum / 2) / 255, 4);
    expect(out.details?.interpolatedFrames).toBe(2);
  });
});
