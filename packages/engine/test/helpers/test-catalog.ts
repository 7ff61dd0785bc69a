/**
 * A small method catalog for pipeline tests: real (simple) streaming computations on decoded
 * frames, plus methods that fail or are slow on purpose. Loaded by the test in the main thread
 * and, by URL, inside the engine's worker threads.
 */
import type { DimensionId, DimensionInfo, Frame, MethodId, MethodInfo } from '../../src/contract.js';
import type { DimensionMethod, FrameRequest, MethodContext, MethodRun } from '../../src/method-contract.js';

function meanOf(f: Frame): number {
  let s = 0;
  for (let i = 0; i < f.data.length; i++) s += f.data[i]!;
  return s / f.data.length;
}

function method(
  dimension: DimensionId,
  id: string,
  frames: (ctx: unknown) => FrameRequest,
  start: (ctx: MethodContext) => MethodRun,
): DimensionMethod {
  return { dimension, id, version: '1', frames, start };
}

const greySmall: FrameRequest = { sampling: { kind: 'all' }, maxSide: 32, channels: 1 };

/**
 * VBench's temporal_flickering formula: 1 − the mean absolute change between consecutive frames
 * (scaled to [0, 1]). `copies`: keep a copy of the previous frame rather than the frame itself.
 */
function meanAbsoluteChange(copies: boolean): () => MethodRun {
  return () => {
    let prev: Uint8Array | null = null;
    let total = 0;
    let pairs = 0;
    const indices: number[] = [];
    return {
      push(f) {
        if (prev) {
          let s = 0;
          for (let i = 0; i < f.data.length; i++) s += Math.abs(f.data[i]! - prev[i]!);
          total += s / f.data.length;
          pairs++;
        }
        prev = copies ? new Uint8Array(f.data) : f.data;
        indices.push(f.index);
      },
      finish() {
        if (pairs === 0)
          throw Object.assign(new Error('needs at least 2 frames'), { code: 'too_few_frames' });
        return { value: (255 - total / pairs) / 255, indices };
      },
    };
  };
}

export const TEST_METHODS: DimensionMethod[] = [
  // Mean luma of all frames, in [0, 1].
  method(
    'subject_consistency',
    'test-mean-luma',
    () => greySmall,
    () => {
      let sum = 0;
      const indices: number[] = [];
      return {
        push(f) {
          sum += meanOf(f);
          indices.push(f.index);
        },
        finish() {
          return {
            value: indices.length ? sum / indices.length / 255 : 0,
            indices,
            details: { frames: indices.length },
          };
        },
      };
    },
  ),
  // VBench's temporal_flickering formula on the same frames as test-mean-luma (shared stream).
  method('temporal_flickering', 'test-mae', () => greySmall, meanAbsoluteChange(false)),
  // test-mae on the same frames, keeping a copy of the previous frame instead of the frame
  // itself: it declares `releasesFrames`, so the worker may give the frame's buffer back.
  {
    ...method('temporal_flickering', 'test-mae-releasing', () => greySmall, meanAbsoluteChange(true)),
    releasesFrames: true,
  },
  // Counts frames of an every-2 RGB decode at native size; value = sampled/total.
  method(
    'dynamic_degree',
    'test-every2',
    () => ({ sampling: { kind: 'every', step: 2 }, maxSide: null, channels: 3 }),
    (ctx) => {
      const indices: number[] = [];
      let sizeOk = true;
      return {
        push(f) {
          indices.push(f.index);
          sizeOk &&= f.width === ctx.probe.displayWidth && f.data.length === f.width * f.height * 3;
        },
        finish() {
          return { value: indices.length / ctx.probe.frameCount, indices, details: { sizeOk } };
        },
      };
    },
  ),
  // Uniform 16 (VBench middle sampler), needs auxiliary `object`; value = mean of red channel / 255.
  method(
    'object_class',
    'test-uniform',
    () => ({ sampling: { kind: 'uniform', count: 16 }, maxSide: 16, channels: 3 }),
    (ctx) => {
      const indices: number[] = [];
      let red = 0;
      return {
        push(f) {
          indices.push(f.index);
          let s = 0;
          for (let i = 0; i < f.data.length; i += 3) s += f.data[i]!;
          red += s / (f.data.length / 3);
        },
        finish() {
          return {
            value: red / indices.length / 255,
            indices,
            details: { object: ctx.auxiliary?.object ?? '' },
          };
        },
      };
    },
  ),
  // Needs the prompt; value = mean luma of the uniform-8 frames.
  method(
    'overall_consistency',
    'test-prompt',
    () => ({ sampling: { kind: 'uniform', count: 8 }, maxSide: 32, channels: 1 }),
    (ctx) => {
      const indices: number[] = [];
      let sum = 0;
      return {
        push(f) {
          indices.push(f.index);
          sum += meanOf(f);
        },
        finish() {
          return {
            value: sum / indices.length / 255,
            indices,
            details: { promptLength: ctx.prompt?.length ?? 0 },
          };
        },
      };
    },
  ),
  // Throws on the third frame: its dimension fails, the others do not.
  method(
    'motion_smoothness',
    'test-throws',
    () => greySmall,
    () => {
      let n = 0;
      return {
        push() {
          if (++n === 3) throw new Error('synthetic failure on frame 3');
        },
        finish() {
          return { value: 0, indices: [] };
        },
      };
    },
  ),
  // Burns ~`ms` of CPU per frame (busy loop on the frame data), to prove the main thread stays free.
  method(
    'aesthetic_quality',
    'test-slow',
    () => greySmall,
    () => {
      const indices: number[] = [];
      let acc = 0;
      return {
        push(f) {
          const until = performance.now() + 40;
          while (performance.now() < until) acc = (acc + f.data[acc % f.data.length]!) % 1_000_003;
          indices.push(f.index);
        },
        finish() {
          return { value: indices.length > 0 ? 0.5 : 0, indices, details: { acc } };
        },
      };
    },
  ),
];

const unavailableModel: MethodInfo = {
  id: 'vbench',
  version: '1',
  description: 'needs a model this test never installs',
  requires: { models: ['test-model'], auxiliary: [], prompt: false },
  available: false,
  unavailableReason: 'model test-model is not installed',
};

function info(id: DimensionId): DimensionInfo {
  const methods: MethodInfo[] = TEST_METHODS.filter((m) => m.dimension === id).map((m) => ({
    id: m.id,
    version: m.version,
    description: 'test method',
    requires: {
      models: [],
      auxiliary: m.id === 'test-uniform' ? ['object'] : [],
      prompt: m.id === 'test-prompt',
    },
    available: true,
  }));
  if (id === 'color') methods.push(unavailableModel);
  return {
    id,
    name: id,
    description: id,
    category: 'quality',
    higherIsBetter: true,
    range: { min: 0, max: 1 },
    methods,
    defaultMethod: methods.find((m) => m.available)?.id ?? null,
    normalisation: { min: 0, max: 1, weight: 1 },
    workflows: ['score'],
  };
}

const IDS: DimensionId[] = [
  'subject_consistency',
  'temporal_flickering',
  'dynamic_degree',
  'object_class',
  'overall_consistency',
  'motion_smoothness',
  'aesthetic_quality',
  'color',
];

export function getMethod(dimension: DimensionId, id: MethodId): DimensionMethod | undefined {
  return TEST_METHODS.find((m) => m.dimension === dimension && m.id === id);
}

export function getDimension(id: string): DimensionInfo | undefined {
  return (IDS as string[]).includes(id) ? info(id as DimensionId) : undefined;
}

export function listDimensions(): DimensionInfo[] {
  return IDS.map(info);
}
