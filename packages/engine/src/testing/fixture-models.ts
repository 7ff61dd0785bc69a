/**
 * Tiny fixture models with the same input / output tensor names and layouts as the real
 * checkpoints in the model manifest, written with the dependency-free ONNX writer. Each builder
 * returns the `.onnx` bytes, the weights it used and a plain-JS reference forward pass, so a test
 * knows exactly what onnxruntime must answer.
 *
 * Weights come from a seeded generator (`seed` option), so a fixture is byte-identical run to run.
 *
 * | builder            | real counterpart                         | inputs → outputs |
 * | ------------------ | ---------------------------------------- | ---------------- |
 * | `tinyClipVision`   | Xenova/clip-vit-*  onnx/vision_model.onnx | `pixel_values` [b,3,H,W] → `image_embeds` [b,E], `last_hidden_state` [b,1+N,D] |
 * | `tinyClipText`     | Xenova/clip-vit-*  onnx/text_model.onnx   | `input_ids` int64 [b,S] (+ optional `attention_mask`) → `text_embeds` [b,E], `last_hidden_state` [b,S,D] |
 * | `tinyDino`         | Xenova/dino-vitb16 onnx/model.onnx        | `pixel_values` [b,3,H,W] → `last_hidden_state` [b,1+N,D] (token 0 = CLS) |
 * | `tinyLinearHead`   | LAION aesthetic `nn.Linear(768,1)`        | `<input>` [b,I] → `<output>` [b,O] |
 * | `tinyInterpolator` | RIFE (`img0`, `img1`, `timestep`)         | → `output` [b,3,H,W] = img0 + t·(img1 − img0) |
 * | `tinyFlow`         | RAFT (two frames → flow)                  | → `flow` [b,2,H,W] (1×1 conv over both frames) |
 * | `tinyDetr`         | Xenova/detr-resnet-50 onnx/model.onnx     | `pixel_values` → `logits` [b,N,C+1], `pred_boxes` [b,N,4] |
 *
 * The vision fixtures are patch embeddings (Conv with kernel = stride = patch) followed by
 * pooling and a projection; spatial size is symbolic, so any H, W that are multiples of the patch
 * work (224×224, or DINO's aspect-preserving 224 short side). The text fixture mean-pools the
 * token embeddings (real CLIP pools at the end-of-text token); ids are taken modulo the tiny
 * vocabulary, so real tokenizer output (ids up to 49407) feeds it directly.
 */
import { encodeModel, node, tensor, valueInfo } from './onnx-writer.js';
import type { NodeSpec, TensorSpec } from './onnx-writer.js';

/** Deterministic weights in [-scale, scale) (mulberry32); fixtures only, never scores. */
export function seededWeights(seed: number, count: number, scale = 0.5): Float32Array {
  let a = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out[i] = (u * 2 - 1) * scale;
  }
  return out;
}

/** A dense float tensor in row-major order. */
export interface FloatTensor {
  data: Float32Array;
  dims: number[];
}

export interface FixtureModel<I, O> {
  bytes: Uint8Array;
  inputNames: string[];
  outputNames: string[];
  /** Plain-JS forward pass of the same graph (float64 accumulation). */
  reference(input: I): O;
}

// --- shared pieces -------------------------------------------------------------------------------

interface PatchEmbed {
  weight: Float32Array; // [D,3,P,P]
  bias: Float32Array; // [D]
  hidden: number;
  patch: number;
}

/** Conv(kernel = stride = P) → tokens [b, N, D] with N = (H/P)·(W/P), row-major over (y, x). */
function patchTokens(pe: PatchEmbed, x: FloatTensor): { tokens: Float64Array; b: number; n: number } {
  const [b = 0, c = 0, h = 0, w = 0] = x.dims;
  const { patch: p, hidden: d } = pe;
  const gh = Math.floor(h / p);
  const gw = Math.floor(w / p);
  const n = gh * gw;
  const tokens = new Float64Array(b * n * d);
  for (let bi = 0; bi < b; bi++) {
    for (let gy = 0; gy < gh; gy++) {
      for (let gx = 0; gx < gw; gx++) {
        for (let o = 0; o < d; o++) {
          let s = pe.bias[o] ?? 0;
          for (let ci = 0; ci < c; ci++) {
            for (let ky = 0; ky < p; ky++) {
              for (let kx = 0; kx < p; kx++) {
                const xv = x.data[((bi * c + ci) * h + gy * p + ky) * w + gx * p + kx] ?? 0;
                const wv = pe.weight[((o * c + ci) * p + ky) * p + kx] ?? 0;
                s += xv * wv;
              }
            }
          }
          tokens[(bi * n + gy * gw + gx) * d + o] = s;
        }
      }
    }
  }
  return { tokens, b, n };
}

/** Mean over tokens: [b, N, D] → [b, D]. */
function meanTokens(tokens: Float64Array, b: number, n: number, d: number): Float64Array {
  const out = new Float64Array(b * d);
  for (let bi = 0; bi < b; bi++) {
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < d; k++)
        out[bi * d + k] = (out[bi * d + k] ?? 0) + (tokens[(bi * n + t) * d + k] ?? 0) / n;
    }
  }
  return out;
}

/** y = x·W + bias, W stored [in, out] (Gemm with transB = 0). */
function affine(
  x: Float64Array,
  rows: number,
  w: Float32Array,
  bias: Float32Array,
  inDim: number,
  outDim: number,
): Float32Array {
  const out = new Float32Array(rows * outDim);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < outDim; o++) {
      let s = bias[o] ?? 0;
      for (let i = 0; i < inDim; i++) s += (x[r * inDim + i] ?? 0) * (w[i * outDim + o] ?? 0);
      out[r * outDim + o] = s;
    }
  }
  return out;
}

function layerNorm(
  x: Float64Array,
  rows: number,
  d: number,
  gamma: Float32Array,
  beta: Float32Array,
  eps: number,
): Float32Array {
  const out = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) {
    let mean = 0;
    for (let k = 0; k < d; k++) mean += x[r * d + k] ?? 0;
    mean /= d;
    let v = 0;
    for (let k = 0; k < d; k++) v += ((x[r * d + k] ?? 0) - mean) ** 2;
    const inv = 1 / Math.sqrt(v / d + eps);
    for (let k = 0; k < d; k++)
      out[r * d + k] = ((x[r * d + k] ?? 0) - mean) * inv * (gamma[k] ?? 0) + (beta[k] ?? 0);
  }
  return out;
}

/** Nodes: pixel_values → `tokens` [b,N,D] and `pooled` [b,D] (mean of tokens). */
function patchEmbedNodes(pe: PatchEmbed, input: string): { nodes: NodeSpec[]; inits: TensorSpec[] } {
  const d = pe.hidden;
  return {
    inits: [
      tensor('patch_embed.weight', 'float32', [d, 3, pe.patch, pe.patch], pe.weight),
      tensor('patch_embed.bias', 'float32', [d], pe.bias),
      tensor('tokens_shape', 'int64', [3], [0, d, -1]),
      tensor('pooled_shape', 'int64', [2], [0, d]),
    ],
    nodes: [
      node('Conv', [input, 'patch_embed.weight', 'patch_embed.bias'], ['patch_grid'], {
        kernel_shape: { ints: [pe.patch, pe.patch] },
        strides: { ints: [pe.patch, pe.patch] },
      }),
      node('Reshape', ['patch_grid', 'tokens_shape'], ['tokens_cf']),
      node('Transpose', ['tokens_cf'], ['tokens'], { perm: { ints: [0, 2, 1] } }),
      node('GlobalAveragePool', ['patch_grid'], ['pooled_4d']),
      node('Reshape', ['pooled_4d', 'pooled_shape'], ['pooled']),
    ],
  };
}

function makePatchEmbed(seed: number, hidden: number, patch: number): PatchEmbed {
  return {
    weight: seededWeights(seed, hidden * 3 * patch * patch, 1 / (patch * Math.sqrt(3))),
    bias: seededWeights(seed + 1, hidden, 0.1),
    hidden,
    patch,
  };
}

// --- CLIP vision -----------------------------------------------------------------------------

export interface TinyVisionOptions {
  /** Patch size (kernel = stride); default 32 (like ViT-B/32). */
  patch?: number;
  /** Token width D; default 8. */
  hidden?: number;
  /** Projection width E (CLIP only); default 4. */
  embed?: number;
  seed?: number;
}

export interface TinyVisionWeights {
  patch: PatchEmbed;
  /** [D, E] */
  projection: Float32Array;
  projectionBias: Float32Array;
  lnGamma: Float32Array;
  lnBeta: Float32Array;
}

const LN_EPS = 1e-6;

/** `last_hidden_state` = LayerNorm(concat(mean token, patch tokens)) — token 0 plays the CLS role. */
function hiddenStateNodes(): NodeSpec[] {
  return [
    node('Unsqueeze', ['pooled', 'axis1'], ['cls']),
    node('Concat', ['cls', 'tokens'], ['sequence'], { axis: { int: 1 } }),
    node('LayerNormalization', ['sequence', 'ln.weight', 'ln.bias'], ['last_hidden_state'], {
      axis: { int: -1 },
      epsilon: { float: LN_EPS },
    }),
  ];
}

function hiddenStateReference(
  w: TinyVisionWeights,
  tokens: Float64Array,
  pooled: Float64Array,
  b: number,
  n: number,
): Float32Array {
  const d = w.patch.hidden;
  const seq = new Float64Array(b * (n + 1) * d);
  for (let bi = 0; bi < b; bi++) {
    seq.set(pooled.subarray(bi * d, (bi + 1) * d), bi * (n + 1) * d);
    seq.set(tokens.subarray(bi * n * d, (bi + 1) * n * d), (bi * (n + 1) + 1) * d);
  }
  return layerNorm(seq, b * (n + 1), d, w.lnGamma, w.lnBeta, LN_EPS);
}

function visionWeights(o: TinyVisionOptions, defaultPatch: number, defaultSeed: number): TinyVisionWeights {
  const seed = o.seed ?? defaultSeed;
  const d = o.hidden ?? 8;
  const e = o.embed ?? 4;
  return {
    patch: makePatchEmbed(seed, d, o.patch ?? defaultPatch),
    projection: seededWeights(seed + 2, d * e, 1 / Math.sqrt(d)),
    projectionBias: seededWeights(seed + 3, e, 0.05),
    lnGamma: seededWeights(seed + 4, d, 0.2).map((v) => 1 + v),
    lnBeta: seededWeights(seed + 5, d, 0.1),
  };
}

/**
 * Tiny CLIP vision tower: `pixel_values` [b,3,H,W] float32 → `image_embeds` [b,E] (not
 * normalised, like CLIPVisionModelWithProjection) and `last_hidden_state` [b,1+N,D].
 */
export function tinyClipVision(options: TinyVisionOptions = {}): FixtureModel<
  FloatTensor,
  { image_embeds: FloatTensor; last_hidden_state: FloatTensor }
> & {
  weights: TinyVisionWeights;
} {
  const w = visionWeights(options, 32, 101);
  const d = w.patch.hidden;
  const e = w.projection.length / d;
  const pe = patchEmbedNodes(w.patch, 'pixel_values');
  const bytes = encodeModel({
    graph: {
      name: 'tiny_clip_vision',
      inputs: [valueInfo('pixel_values', 'float32', ['batch_size', 3, 'height', 'width'])],
      outputs: [
        valueInfo('image_embeds', 'float32', ['batch_size', e]),
        valueInfo('last_hidden_state', 'float32', ['batch_size', 'sequence_length', d]),
      ],
      initializers: [
        ...pe.inits,
        tensor('visual_projection.weight', 'float32', [d, e], w.projection),
        tensor('visual_projection.bias', 'float32', [e], w.projectionBias),
        tensor('axis1', 'int64', [1], [1]),
        tensor('ln.weight', 'float32', [d], w.lnGamma),
        tensor('ln.bias', 'float32', [d], w.lnBeta),
      ],
      nodes: [
        ...pe.nodes,
        node('Gemm', ['pooled', 'visual_projection.weight', 'visual_projection.bias'], ['image_embeds']),
        ...hiddenStateNodes(),
      ],
    },
    metadata: { fixture: 'tiny_clip_vision' },
  });
  return {
    bytes,
    weights: w,
    inputNames: ['pixel_values'],
    outputNames: ['image_embeds', 'last_hidden_state'],
    reference(x) {
      const { tokens, b, n } = patchTokens(w.patch, x);
      const pooled = meanTokens(tokens, b, n, d);
      return {
        image_embeds: { data: affine(pooled, b, w.projection, w.projectionBias, d, e), dims: [b, e] },
        last_hidden_state: { data: hiddenStateReference(w, tokens, pooled, b, n), dims: [b, n + 1, d] },
      };
    },
  };
}

/** Tiny DINO (ViTModel): `pixel_values` [b,3,H,W] → `last_hidden_state` [b,1+N,D]; token 0 is the CLS feature. */
export function tinyDino(
  options: Omit<TinyVisionOptions, 'embed'> = {},
): FixtureModel<FloatTensor, { last_hidden_state: FloatTensor }> & { weights: TinyVisionWeights } {
  const w = visionWeights(options, 16, 202);
  const d = w.patch.hidden;
  const pe = patchEmbedNodes(w.patch, 'pixel_values');
  const bytes = encodeModel({
    graph: {
      name: 'tiny_dino',
      inputs: [valueInfo('pixel_values', 'float32', ['batch_size', 3, 'height', 'width'])],
      outputs: [valueInfo('last_hidden_state', 'float32', ['batch_size', 'sequence_length', d])],
      initializers: [
        ...pe.inits,
        tensor('axis1', 'int64', [1], [1]),
        tensor('ln.weight', 'float32', [d], w.lnGamma),
        tensor('ln.bias', 'float32', [d], w.lnBeta),
      ],
      nodes: [...pe.nodes, ...hiddenStateNodes()],
    },
    metadata: { fixture: 'tiny_dino' },
  });
  return {
    bytes,
    weights: w,
    inputNames: ['pixel_values'],
    outputNames: ['last_hidden_state'],
    reference(x) {
      const { tokens, b, n } = patchTokens(w.patch, x);
      const pooled = meanTokens(tokens, b, n, d);
      return {
        last_hidden_state: { data: hiddenStateReference(w, tokens, pooled, b, n), dims: [b, n + 1, d] },
      };
    },
  };
}

// --- CLIP text ---------------------------------------------------------------------------------

export interface TinyTextOptions {
  /** Embedding table rows; ids are taken modulo this. Default 64. */
  vocab?: number;
  hidden?: number;
  embed?: number;
  /** Declare an (unused) `attention_mask` int64 input, as some exports do. Default false. */
  attentionMask?: boolean;
  seed?: number;
}

export interface IdsTensor {
  /** int64 ids, row-major [b, S]. */
  data: BigInt64Array;
  dims: [number, number];
}

/**
 * Tiny CLIP text tower: `input_ids` int64 [b,S] → `text_embeds` [b,E] (mean-pooled, projected) and
 * `last_hidden_state` [b,S,D] (token embeddings of `id mod vocab`).
 */
export function tinyClipText(options: TinyTextOptions = {}): FixtureModel<
  IdsTensor,
  { text_embeds: FloatTensor; last_hidden_state: FloatTensor }
> & {
  weights: { table: Float32Array; projection: Float32Array; projectionBias: Float32Array; vocab: number };
} {
  const seed = options.seed ?? 303;
  const v = options.vocab ?? 64;
  const d = options.hidden ?? 8;
  const e = options.embed ?? 4;
  const weights = {
    table: seededWeights(seed, v * d, 1),
    projection: seededWeights(seed + 1, d * e, 1 / Math.sqrt(d)),
    projectionBias: seededWeights(seed + 2, e, 0.05),
    vocab: v,
  };
  const inputs = [valueInfo('input_ids', 'int64', ['batch_size', 'sequence_length'])];
  if (options.attentionMask)
    inputs.push(valueInfo('attention_mask', 'int64', ['batch_size', 'sequence_length']));
  const bytes = encodeModel({
    graph: {
      name: 'tiny_clip_text',
      inputs,
      outputs: [
        valueInfo('text_embeds', 'float32', ['batch_size', e]),
        valueInfo('last_hidden_state', 'float32', ['batch_size', 'sequence_length', d]),
      ],
      initializers: [
        tensor('vocab_size', 'int64', [], [v]),
        tensor('token_embedding.weight', 'float32', [v, d], weights.table),
        tensor('text_projection.weight', 'float32', [d, e], weights.projection),
        tensor('text_projection.bias', 'float32', [e], weights.projectionBias),
      ],
      nodes: [
        node('Mod', ['input_ids', 'vocab_size'], ['token_ids']),
        node('Gather', ['token_embedding.weight', 'token_ids'], ['last_hidden_state'], { axis: { int: 0 } }),
        node('ReduceMean', ['last_hidden_state'], ['pooled'], { axes: { ints: [1] }, keepdims: { int: 0 } }),
        node('Gemm', ['pooled', 'text_projection.weight', 'text_projection.bias'], ['text_embeds']),
      ],
    },
    metadata: { fixture: 'tiny_clip_text' },
  });
  return {
    bytes,
    weights,
    inputNames: inputs.map((i) => i.name),
    outputNames: ['text_embeds', 'last_hidden_state'],
    reference(ids) {
      const [b, s] = ids.dims;
      const hidden = new Float64Array(b * s * d);
      for (let i = 0; i < b * s; i++) {
        const raw = ids.data[i] ?? 0n;
        const row = Number(((raw % BigInt(v)) + BigInt(v)) % BigInt(v));
        for (let k = 0; k < d; k++) hidden[i * d + k] = weights.table[row * d + k] ?? 0;
      }
      const pooled = meanTokens(hidden, b, s, d);
      return {
        text_embeds: {
          data: affine(pooled, b, weights.projection, weights.projectionBias, d, e),
          dims: [b, e],
        },
        last_hidden_state: { data: Float32Array.from(hidden), dims: [b, s, d] },
      };
    },
  };
}

// --- linear head ---------------------------------------------------------------------------------

export interface LinearHeadOptions {
  inDim?: number;
  outDim?: number;
  inputName?: string;
  outputName?: string;
  /** Explicit weights [outDim × inDim] (PyTorch nn.Linear layout) and bias; seeded when absent. */
  weight?: Float32Array;
  bias?: Float32Array;
  seed?: number;
}

/** `nn.Linear`-style head: `<input>` [b,I] → `<output>` [b,O] = x·Wᵀ + b (default 768 → 1, `embeds` → `score`). */
export function tinyLinearHead(
  options: LinearHeadOptions = {},
): FixtureModel<FloatTensor, FloatTensor> & { weights: { weight: Float32Array; bias: Float32Array } } {
  const i = options.inDim ?? 768;
  const o = options.outDim ?? 1;
  const seed = options.seed ?? 404;
  const weight = options.weight ?? seededWeights(seed, o * i, 1 / Math.sqrt(i));
  const bias = options.bias ?? seededWeights(seed + 1, o, 0.5);
  const input = options.inputName ?? 'embeds';
  const output = options.outputName ?? 'score';
  const bytes = encodeModel({
    graph: {
      name: 'tiny_linear_head',
      inputs: [valueInfo(input, 'float32', ['batch_size', i])],
      outputs: [valueInfo(output, 'float32', ['batch_size', o])],
      initializers: [
        tensor('linear.weight', 'float32', [o, i], weight),
        tensor('linear.bias', 'float32', [o], bias),
      ],
      nodes: [node('Gemm', [input, 'linear.weight', 'linear.bias'], [output], { transB: { int: 1 } })],
    },
    metadata: { fixture: 'tiny_linear_head' },
  });
  return {
    bytes,
    weights: { weight, bias },
    inputNames: [input],
    outputNames: [output],
    reference(x) {
      const rows = x.dims[0] ?? 0;
      const out = new Float32Array(rows * o);
      for (let r = 0; r < rows; r++) {
        for (let k = 0; k < o; k++) {
          let s = bias[k] ?? 0;
          for (let j = 0; j < i; j++) s += (x.data[r * i + j] ?? 0) * (weight[k * i + j] ?? 0);
          out[r * o + k] = s;
        }
      }
      return { data: out, dims: [rows, o] };
    },
  };
}

// --- frame interpolation and optical flow ------------------------------------------------------

/**
 * RIFE-shaped interpolator: `img0`, `img1` [b,3,H,W] in [0,1] and `timestep` [1] → `output`
 * [b,3,H,W] = img0 + t·(img1 − img0) (a linear blend, so the expected frame is known exactly).
 */
export function tinyInterpolator(
  options: { outputName?: string } = {},
): FixtureModel<{ img0: FloatTensor; img1: FloatTensor; timestep: number }, FloatTensor> {
  const output = options.outputName ?? 'output';
  const bytes = encodeModel({
    graph: {
      name: 'tiny_interpolator',
      inputs: [
        valueInfo('img0', 'float32', ['batch_size', 3, 'height', 'width']),
        valueInfo('img1', 'float32', ['batch_size', 3, 'height', 'width']),
        valueInfo('timestep', 'float32', [1]),
      ],
      outputs: [valueInfo(output, 'float32', ['batch_size', 3, 'height', 'width'])],
      nodes: [
        node('Sub', ['img1', 'img0'], ['delta']),
        node('Mul', ['delta', 'timestep'], ['step']),
        node('Add', ['img0', 'step'], [output]),
      ],
    },
    metadata: { fixture: 'tiny_interpolator' },
  });
  return {
    bytes,
    inputNames: ['img0', 'img1', 'timestep'],
    outputNames: [output],
    reference({ img0, img1, timestep }) {
      const data = new Float32Array(img0.data.length);
      for (let k = 0; k < data.length; k++) {
        const a = img0.data[k] ?? 0;
        data[k] = a + timestep * ((img1.data[k] ?? 0) - a);
      }
      return { data, dims: [...img0.dims] };
    },
  };
}

/**
 * RAFT-shaped flow model: two frames [b,3,H,W] → `flow` [b,2,H,W] from a 1×1 convolution over the
 * six stacked channels (`flow[c] = Σ w[c,k]·x[k] + bias[c]`). Input names default to `image1`,
 * `image2`; pass the real export's names when they differ.
 */
export function tinyFlow(
  options: { inputNames?: [string, string]; outputName?: string; seed?: number } = {},
): FixtureModel<[FloatTensor, FloatTensor], FloatTensor> & {
  weights: { weight: Float32Array; bias: Float32Array };
} {
  const [in0, in1] = options.inputNames ?? ['image1', 'image2'];
  const output = options.outputName ?? 'flow';
  const seed = options.seed ?? 505;
  const weight = seededWeights(seed, 2 * 6, 4);
  const bias = seededWeights(seed + 1, 2, 1);
  const bytes = encodeModel({
    graph: {
      name: 'tiny_flow',
      inputs: [
        valueInfo(in0, 'float32', ['batch_size', 3, 'height', 'width']),
        valueInfo(in1, 'float32', ['batch_size', 3, 'height', 'width']),
      ],
      outputs: [valueInfo(output, 'float32', ['batch_size', 2, 'height', 'width'])],
      initializers: [
        tensor('flow_head.weight', 'float32', [2, 6, 1, 1], weight),
        tensor('flow_head.bias', 'float32', [2], bias),
      ],
      nodes: [
        node('Concat', [in0, in1], ['pair'], { axis: { int: 1 } }),
        node('Conv', ['pair', 'flow_head.weight', 'flow_head.bias'], [output], {
          kernel_shape: { ints: [1, 1] },
        }),
      ],
    },
    metadata: { fixture: 'tiny_flow' },
  });
  return {
    bytes,
    weights: { weight, bias },
    inputNames: [in0, in1],
    outputNames: [output],
    reference([a, b]) {
      const [n = 0, , h = 0, w = 0] = a.dims;
      const plane = h * w;
      const data = new Float32Array(n * 2 * plane);
      for (let bi = 0; bi < n; bi++) {
        for (let c = 0; c < 2; c++) {
          for (let p = 0; p < plane; p++) {
            let s = bias[c] ?? 0;
            for (let k = 0; k < 6; k++) {
              const src = k < 3 ? a : b;
              s += (weight[c * 6 + k] ?? 0) * (src.data[(bi * 3 + (k % 3)) * plane + p] ?? 0);
            }
            data[(bi * 2 + c) * plane + p] = s;
          }
        }
      }
      return { data, dims: [n, 2, h, w] };
    },
  };
}

// --- detector ------------------------------------------------------------------------------------

/**
 * DETR-shaped detector: `pixel_values` [b,3,H,W] → `logits` [b,N,C+1] (last class = "no object")
 * and `pred_boxes` [b,N,4] (sigmoid, normalised cx, cy, w, h); one query per patch.
 */
export function tinyDetr(
  options: { classes?: number; patch?: number; hidden?: number; seed?: number } = {},
): FixtureModel<FloatTensor, { logits: FloatTensor; pred_boxes: FloatTensor }> & {
  weights: {
    patch: PatchEmbed;
    classifier: Float32Array;
    classifierBias: Float32Array;
    box: Float32Array;
    boxBias: Float32Array;
  };
} {
  const seed = options.seed ?? 606;
  const c = (options.classes ?? 91) + 1;
  const d = options.hidden ?? 8;
  const weights = {
    patch: makePatchEmbed(seed, d, options.patch ?? 32),
    classifier: seededWeights(seed + 2, d * c, 2),
    classifierBias: seededWeights(seed + 3, c, 0.5),
    box: seededWeights(seed + 4, d * 4, 1),
    boxBias: seededWeights(seed + 5, 4, 0.5),
  };
  const pe = patchEmbedNodes(weights.patch, 'pixel_values');
  const bytes = encodeModel({
    graph: {
      name: 'tiny_detr',
      inputs: [valueInfo('pixel_values', 'float32', ['batch_size', 3, 'height', 'width'])],
      outputs: [
        valueInfo('logits', 'float32', ['batch_size', 'num_queries', c]),
        valueInfo('pred_boxes', 'float32', ['batch_size', 'num_queries', 4]),
      ],
      initializers: [
        ...pe.inits,
        tensor('class_embed.weight', 'float32', [d, c], weights.classifier),
        tensor('class_embed.bias', 'float32', [c], weights.classifierBias),
        tensor('bbox_embed.weight', 'float32', [d, 4], weights.box),
        tensor('bbox_embed.bias', 'float32', [4], weights.boxBias),
      ],
      nodes: [
        ...pe.nodes,
        node('MatMul', ['tokens', 'class_embed.weight'], ['class_raw']),
        node('Add', ['class_raw', 'class_embed.bias'], ['logits']),
        node('MatMul', ['tokens', 'bbox_embed.weight'], ['box_raw']),
        node('Add', ['box_raw', 'bbox_embed.bias'], ['box_logits']),
        node('Sigmoid', ['box_logits'], ['pred_boxes']),
      ],
    },
    metadata: { fixture: 'tiny_detr' },
  });
  return {
    bytes,
    weights,
    inputNames: ['pixel_values'],
    outputNames: ['logits', 'pred_boxes'],
    reference(x) {
      const { tokens, b, n } = patchTokens(weights.patch, x);
      const logits = affine(tokens, b * n, weights.classifier, weights.classifierBias, d, c);
      const boxes = affine(tokens, b * n, weights.box, weights.boxBias, d, 4).map(
        (v) => 1 / (1 + Math.exp(-v)),
      );
      return { logits: { data: logits, dims: [b, n, c] }, pred_boxes: { data: boxes, dims: [b, n, 4] } };
    },
  };
}
