/**
 * Detection dimensions, method `detr` (substitute for VBench's GRiT-B, which has no ONNX export):
 * DETR ResNet-50 (COCO) on VBench's 16 uniform frames, preprocessed as DetrImageProcessor does
 * (shorter side 800, longer ≤ 1333, bilinear, ImageNet mean/std). A query is a detection when its
 * best non-"no object" class probability (softmax over the logits) exceeds 0.5 (VBench's GRiT box
 * score threshold); labels are the COCO names of the model's `config.json` (`id2label`), compared
 * case-insensitively with the auxiliary object names. Per-frame rules (vbench-methods.md §2.8–2.12):
 * - object_class: hit when the object is detected; value = hits / 16;
 * - multiple_objects: `object` = "A and B"; hit when both are detected; value = hits / 16;
 * - spatial_relationship: boxes of object_a or object_b; each pair scores (by the relation's axis)
 *   1 when IoU < 0.1, else 0.1/IoU, when the centres are separated more along that axis, else 0;
 *   frame score = best pair (0 with fewer than 2 boxes); value = mean over frames;
 * - color: the object is parsed from `auxiliary.object`, else from the prompt (VBench: remove
 *   "a ", "an " and the colour word); a frame counts for n_obj when the object is detected, and for
 *   n_col when the dominant colour name of a detected object box (HSV buckets over the box's
 *   central half, on a ≤ 128 px copy of the frame) is the requested colour (DETR has no captions,
 *   which is what GRiT's colour test reads). value = n_col / n_obj; a clip without the object
 *   scores 0 (`objectFrames` = 0; VBench would leave such a video out of its mean).
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../../contract.js';
import type { DimensionId, Frame } from '../../contract.js';
import type { BatchOutputs, BatchSpec, JobInference } from '../../inference/job.js';
import type { AsyncMethodRun, MethodContext, MethodOutcome, ModelMethod } from '../../method-contract.js';
import { FrameSizeGuard } from '../common.js';
import { smallRgb } from '../working.js';
import { inferenceOf, MODEL_IDS, refsOf, requireAux, softmax, uniformNative } from './common.js';
import { colourName } from './colour.js';

const DETR = MODEL_IDS.detr;
export const DETECTION_THRESHOLD = 0.5;

/** One query's detection: class index, probability, normalised box (cx, cy, w, h). */
export interface RawDetection {
  classIndex: number;
  score: number;
  box: [number, number, number, number];
}

export interface Detection {
  label: string;
  score: number;
  /** Pixels of the source frame: x0, y0, x1, y1. */
  box: [number, number, number, number];
}

/** DETR post-processing of one batch: detections above the threshold per frame. */
export function readDetections(
  out: BatchOutputs,
  count: number,
  threshold = DETECTION_THRESHOLD,
): RawDetection[][] {
  const logits = out.logits!;
  const boxes = out.pred_boxes!;
  const [b, q, c] = logits.dims as [number, number, number];
  if (b !== count || boxes.dims[0] !== count || boxes.dims[1] !== q || boxes.dims[2] !== 4) {
    throw new Error(`unexpected detector outputs [${logits.dims.join(', ')}] / [${boxes.dims.join(', ')}]`);
  }
  const frames: RawDetection[][] = [];
  for (let i = 0; i < b; i++) {
    const found: RawDetection[] = [];
    for (let k = 0; k < q; k++) {
      const row = Array.from(logits.data.subarray((i * q + k) * c, (i * q + k + 1) * c));
      const p = softmax(row);
      let best = 0;
      for (let j = 1; j < c - 1; j++) if (p[j]! > p[best]!) best = j;
      if (p[best]! > threshold) {
        const o = (i * q + k) * 4;
        const bx = boxes.data;
        found.push({ classIndex: best, score: p[best]!, box: [bx[o]!, bx[o + 1]!, bx[o + 2]!, bx[o + 3]!] });
      }
    }
    frames.push(found);
  }
  return frames;
}

export const DETR_SPEC: BatchSpec<RawDetection[]> = {
  model: DETR,
  role: 'model',
  input: 'pixel_values',
  outputs: ['logits', 'pred_boxes'],
  transform: 'detr800',
  readoutKey: `detections>${DETECTION_THRESHOLD}`,
  read: (out, count) => readDetections(out, count),
};

/** COCO names by class index from the model's config.json `id2label`. */
export function loadLabels(inference: JobInference): Map<number, string> {
  const path = inference.file(DETR, 'config');
  try {
    const config = JSON.parse(readFileSync(path, 'utf8')) as { id2label?: Record<string, string> };
    if (!config.id2label) throw new Error('no id2label');
    return new Map(Object.entries(config.id2label).map(([k, v]) => [Number(k), String(v).toLowerCase()]));
  } catch (err) {
    throw new EngineError(
      'model_unavailable',
      `cannot read the detector's labels ${path}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

interface FrameDetections {
  frame: number;
  width: number;
  height: number;
  detections: Detection[];
  small: { width: number; height: number; data: Float32Array } | null;
}

type FrameRule = (frames: FrameDetections[]) => {
  value: number;
  details: Record<string, number | string | boolean>;
};

function detectionMethod(
  dimension: DimensionId,
  rule: (context: MethodContext) => FrameRule,
  keepPixels = false,
): ModelMethod {
  return {
    dimension,
    id: 'detr',
    version: '1',
    models: [DETR],
    frames: () => uniformNative(16),
    start: (context: MethodContext): AsyncMethodRun => {
      const score = rule(context);
      const inference = inferenceOf(context, dimension);
      const labels = loadLabels(inference);
      const queue = inference.queue(DETR_SPEC);
      const guard = new FrameSizeGuard(dimension, 3);
      const pending: Array<{ frame: Frame; raw: Promise<RawDetection[]>; small: FrameDetections['small'] }> =
        [];
      return {
        push(frame) {
          guard.check(frame);
          const small = keepPixels ? smallRgb(frame, 128) : null;
          pending.push({ frame: { ...frame, data: new Uint8Array(0) }, raw: queue.submit(frame), small });
          return queue.pressure();
        },
        async finish(): Promise<MethodOutcome> {
          await queue.drain();
          if (pending.length < 1) throw new EngineError('too_few_frames', `${dimension} received no frames`);
          const frames: FrameDetections[] = [];
          for (const p of pending) {
            const raw = await p.raw;
            const { width, height } = p.frame;
            frames.push({
              frame: p.frame.index,
              width,
              height,
              small: p.small,
              detections: raw.map((d) => {
                const [cx, cy, w, h] = d.box;
                return {
                  label: labels.get(d.classIndex) ?? `class ${d.classIndex}`,
                  score: d.score,
                  box: [
                    (cx - w / 2) * width,
                    (cy - h / 2) * height,
                    (cx + w / 2) * width,
                    (cy + h / 2) * height,
                  ],
                };
              }),
            });
          }
          const { value, details } = score(frames);
          return {
            value,
            indices: pending.map((p) => p.frame.index),
            models: refsOf(inference, [DETR]),
            details: {
              frames: frames.length,
              detections: frames.reduce((a, f) => a + f.detections.length, 0),
              ...details,
            },
          };
        },
      };
    },
  };
}

const has = (f: FrameDetections, name: string): boolean => f.detections.some((d) => d.label === name);

export const objectClassDetr = detectionMethod('object_class', (ctx) => {
  const object = requireAux(ctx, 'object_class', 'object').toLowerCase();
  return (frames) => {
    const hits = frames.filter((f) => has(f, object)).length;
    return { value: hits / frames.length, details: { hits } };
  };
});

export const multipleObjectsDetr = detectionMethod('multiple_objects', (ctx) => {
  const spec = requireAux(ctx, 'multiple_objects', 'object').toLowerCase();
  const parts = spec.split(' and ').map((s) => s.trim());
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new EngineError(
      'missing_auxiliary',
      `multiple_objects needs auxiliary object "A and B", got "${spec}"`,
    );
  }
  const [a, b] = parts as [string, string];
  return (frames) => {
    const hits = frames.filter((f) => has(f, a) && has(f, b)).length;
    return { value: hits / frames.length, details: { hits } };
  };
});

function iou(a: Detection['box'], b: Detection['box']): number {
  const ix = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = ix * iy;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / union : 0;
}

/** VBench's pair score for a relation (direction and object order are ignored, as in VBench). */
export function pairScore(relation: string, a: Detection['box'], b: Detection['box']): number {
  const dx = (b[0] + b[2]) / 2 - (a[0] + a[2]) / 2;
  const dy = (b[1] + b[3]) / 2 - (a[1] + a[3]) / 2;
  const horizontal = relation.includes('left') || relation.includes('right');
  const vertical = relation.includes('top') || relation.includes('bottom');
  const separated = horizontal ? Math.abs(dx) > Math.abs(dy) : vertical ? Math.abs(dy) > Math.abs(dx) : false;
  if (!separated) return 0;
  const o = iou(a, b);
  return o < 0.1 ? 1 : 0.1 / o;
}

export const spatialRelationshipDetr = detectionMethod('spatial_relationship', (ctx) => {
  const relation = requireAux(ctx, 'spatial_relationship', 'relationship').toLowerCase();
  const a = requireAux(ctx, 'spatial_relationship', 'object_a').toLowerCase();
  const b = requireAux(ctx, 'spatial_relationship', 'object_b').toLowerCase();
  return (frames) => {
    const scores = frames.map((f) => {
      const boxes = f.detections.filter((d) => d.label === a || d.label === b).map((d) => d.box);
      let best = 0;
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          best = Math.max(best, pairScore(relation, boxes[i]!, boxes[j]!));
      return best;
    });
    return {
      value: scores.reduce((x, y) => x + y, 0) / scores.length,
      details: { framesWithPair: scores.filter((s) => s > 0).length },
    };
  };
});

/** VBench's object parsing for colour prompts: drop "a ", "an " and the colour word. */
export function colourObject(prompt: string, colour: string): string {
  return prompt
    .toLowerCase()
    .split('a ')
    .join('')
    .split('an ')
    .join('')
    .split(colour.toLowerCase())
    .join('')
    .trim();
}

export const colorDetr = detectionMethod(
  'color',
  (ctx) => {
    const colour = requireAux(ctx, 'color', 'color').toLowerCase();
    const fromAux = ctx.auxiliary?.object?.trim();
    const object = (fromAux || colourObject(ctx.prompt?.trim() ?? '', colour)).toLowerCase();
    if (!object)
      throw new EngineError('missing_prompt', 'color needs the object (auxiliary object, or the prompt)');
    return (frames) => {
      let nObj = 0;
      let nCol = 0;
      for (const f of frames) {
        const boxes = f.detections.filter((d) => d.label === object);
        if (boxes.length === 0) continue;
        nObj++;
        const small = f.small;
        if (small && boxes.some((d) => colourName(small, d.box, small.width / f.width) === colour)) nCol++;
      }
      return {
        value: nObj > 0 ? nCol / nObj : 0,
        details: { objectFrames: nObj, colourFrames: nCol, object },
      };
    };
  },
  true,
);
