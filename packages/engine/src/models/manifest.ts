/**
 * The model manifest: every model the model-backed dimension methods use, where it comes from
 * (repository and revision), which files it needs (path, size, sha256), its licence and the
 * dimensions that use it. Data and types only; the store (`store.ts`) acts on it.
 *
 * Values are real, read from the repositories' published file pages. Where a revision, size or
 * sha256 could not be confirmed, it is `null`, and the store pins it on the first successful pull
 * in `<cache>/models.lock.json` (trust on first use); later pulls and `verify` check against that
 * pin. docs/models.md lists which values are pinned here and which on first use.
 */
import type { DimensionId } from '../contract.js';

/** Weight precisions. `fp32` is the default; `fp16` and `q8` are smaller, slightly different. */
export const PRECISIONS = ['fp32', 'fp16', 'q8'] as const;
export type Precision = (typeof PRECISIONS)[number];

/** File-name suffix of each precision in the transformers.js repository layout. */
export const PRECISION_SUFFIX: Readonly<Record<Precision, string>> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
};

/** Where a model's files are published. */
export interface ModelSource {
  /** `huggingface`: `<hub>/<repo>/resolve/<revision>/<path>`; `github`: raw files of a repository. */
  host: 'huggingface' | 'github';
  /** `owner/name`. */
  repo: string;
}

export interface ManifestFile {
  /** What the file is to the inference code: `vision`, `text`, `model`, `tokenizer`, `head`, … */
  role: string;
  /** Path inside the repository (also the path inside the model's cache folder). */
  path: string;
  /** Only for this precision; `null` when every precision needs it (configs, tokenizers). */
  precision: Precision | null;
  /** Bytes; `null` = pinned on first use. */
  size: number | null;
  /** Lower-case hex sha256; `null` = pinned on first use. */
  sha256: string | null;
}

export interface ModelManifestEntry {
  id: string;
  description: string;
  source: ModelSource;
  /** Full commit hash; `null` = the default branch, pinned on first use (the hub's `X-Repo-Commit`). */
  revision: string | null;
  /** SPDX expression of the weights' licence. */
  licence: string;
  /** Dimensions whose model-backed methods use this model. */
  dimensions: DimensionId[];
  /** Precisions this repository publishes; the first is the default. */
  precisions: Precision[];
  files: ManifestFile[];
  /** Provenance and deviations from VBench, for docs and `vesta models status`. */
  notes?: string;
}

type ShaByPrecision = Partial<Record<Precision, string | null>>;

/** One weight file per precision, in the `<base><suffix>.onnx` layout. */
function weights(role: string, base: string, sha: ShaByPrecision): ManifestFile[] {
  return (Object.keys(sha) as Precision[]).map((precision) => ({
    role,
    path: `${base}${PRECISION_SUFFIX[precision]}.onnx`,
    precision,
    size: null,
    sha256: sha[precision] ?? null,
  }));
}

/** A file every precision needs, not pinned in the manifest. */
function shared(
  role: string,
  path: string,
  size: number | null = null,
  sha256: string | null = null,
): ManifestFile {
  return { role, path, precision: null, size, sha256 };
}

const CLIP_DIMENSIONS: DimensionId[] = [
  'background_consistency',
  'appearance_style',
  'imaging_quality',
  'overall_consistency',
  'temporal_style',
  'scene',
  'human_action',
];

/** The manifest shipped with this build (ids match `VBENCH_MODEL_IDS` where VBench's own model is used). */
export const MODEL_MANIFEST: readonly ModelManifestEntry[] = [
  {
    id: 'clip-vit-b32',
    description: 'OpenAI CLIP ViT-B/32, vision and text towers (ONNX, transformers.js layout)',
    source: { host: 'huggingface', repo: 'Xenova/clip-vit-base-patch32' },
    revision: '4c1807b705b1d015fb032789cc4d221b23025a6f',
    licence: 'MIT',
    dimensions: CLIP_DIMENSIONS,
    precisions: ['fp32', 'fp16', 'q8'],
    files: [
      ...weights('vision', 'onnx/vision_model', {
        fp32: 'fd6e1402a588279d1723c7534d4bcba5bc0b14b47dfab0e46f8c47b8270d7d40',
        fp16: '35c4e0fb0aeee527dcde1693520b214a34424a786babd530f35366bad5844efd',
        q8: null,
      }),
      ...weights('text', 'onnx/text_model', {
        fp32: null,
        fp16: 'df587ffbf248bf20d44fa6e16adc5ebc27ead691860e5333dbdaab5fd6bf3f6e',
        q8: '73baab855d406190da9faa498cfedf65f15cf309f4cc7385b7b032e6d08e5c3a',
      }),
      shared('tokenizer', 'tokenizer.json'),
      shared('tokenizer_config', 'tokenizer_config.json'),
      shared('preprocessor', 'preprocessor_config.json'),
      shared('config', 'config.json'),
    ],
    notes:
      'Outputs image_embeds / text_embeds (512-d, not normalised). Used by VBench for background_consistency and appearance_style; Vesta also uses it for the CLIP-based substitutes (imaging_quality, overall_consistency, temporal_style, scene, human_action).',
  },
  {
    id: 'clip-vit-l14',
    description: 'OpenAI CLIP ViT-L/14 vision tower (ONNX), input of the LAION aesthetic head',
    source: { host: 'huggingface', repo: 'Xenova/clip-vit-large-patch14' },
    revision: null,
    licence: 'MIT',
    dimensions: ['aesthetic_quality'],
    precisions: ['fp32', 'fp16', 'q8'],
    files: [
      ...weights('vision', 'onnx/vision_model', { fp32: null, fp16: null, q8: null }),
      shared('preprocessor', 'preprocessor_config.json'),
      shared('config', 'config.json'),
    ],
    notes:
      'image_embeds is 768-d; fp32 is about 1.2 GB, q8 about 307 MB (q8 shifts aesthetic scores slightly).',
  },
  {
    id: 'laion-aesthetic-v1-linear',
    description:
      "LAION aesthetic predictor V1 (nn.Linear(768, 1) on CLIP ViT-L/14 embeddings), VBench's head",
    source: { host: 'github', repo: 'LAION-AI/aesthetic-predictor' },
    revision: '6d122adad522ab246644d9dc1c6d7a3810ee255f',
    licence: 'MIT',
    dimensions: ['aesthetic_quality'],
    precisions: ['fp32'],
    files: [shared('head', 'sa_0_4_vit_l_14_linear.pth', 4071)],
    notes: 'A PyTorch state dict (weight [1,768], bias [1]); VBench divides the output by 10.',
  },
  {
    id: 'dino-vitb16',
    description: 'DINO ViT-B/16 (self-supervised), CLS token of last_hidden_state',
    source: { host: 'huggingface', repo: 'Xenova/dino-vitb16' },
    revision: null,
    licence: 'Apache-2.0',
    dimensions: ['subject_consistency'],
    precisions: ['fp32', 'fp16', 'q8'],
    files: [
      ...weights('model', 'onnx/model', {
        fp32: null,
        fp16: null,
        q8: 'aadbd2cff4c2b12966ddb9668e777edb7ff942d86157562da83cd346576c0205',
      }),
      shared('preprocessor', 'preprocessor_config.json'),
      shared('config', 'config.json'),
    ],
    notes: 'Same weights as torch.hub facebookresearch/dino dino_vitb16, which VBench loads.',
  },
  {
    id: 'raft-sintel',
    description: 'RAFT optical flow (OpenCV zoo ONNX export, Sintel weights, fixed 360×480 input)',
    source: { host: 'huggingface', repo: 'opencv/optical_flow_estimation_raft' },
    revision: null,
    licence: 'BSD-3-Clause AND MIT',
    dimensions: ['dynamic_degree'],
    precisions: ['fp32', 'q8'],
    files: [
      {
        role: 'flow',
        path: 'optical_flow_estimation_raft_2023aug.onnx',
        precision: 'fp32',
        size: null,
        sha256: null,
      },
      {
        role: 'flow',
        path: 'optical_flow_estimation_raft_2023aug_int8bq.onnx',
        precision: 'q8',
        size: null,
        sha256: null,
      },
    ],
    notes:
      "VBench uses raft-things.pth (no ONNX export is published); this is the same architecture with Sintel weights at a fixed size, so VBench's threshold is rescaled to 360×480.",
  },
  {
    id: 'rife-v4.9',
    description: 'RIFE v4.9 frame interpolation (Practical-RIFE, ONNX): img0, img1, timestep → output',
    source: { host: 'huggingface', repo: 'edgetools/rife' },
    revision: null,
    licence: 'MIT',
    dimensions: ['motion_smoothness'],
    precisions: ['fp32'],
    files: [{ role: 'interpolator', path: 'rife49.onnx', precision: 'fp32', size: null, sha256: null }],
    notes: 'Substitute for AMT-S (CC BY-NC 4.0, no ONNX export); absolute values differ from VBench.',
  },
  {
    id: 'detr-resnet-50',
    description: 'DETR ResNet-50 COCO object detector (ONNX): pixel_values → logits, pred_boxes',
    source: { host: 'huggingface', repo: 'Xenova/detr-resnet-50' },
    revision: null,
    licence: 'Apache-2.0',
    dimensions: ['object_class', 'multiple_objects', 'color', 'spatial_relationship'],
    precisions: ['fp32', 'q8'],
    files: [
      ...weights('model', 'onnx/model', {
        fp32: '5dffb3205e68b0be1686eea283ecf87e7592d3dceed5dfc83249f7303e9e95e8',
        q8: 'cae09a307ed9247da7e2ce8bcf81522a6817f1ea2e82b9c4dde59f5964b62b4f',
      }),
      shared('preprocessor', 'preprocessor_config.json'),
      shared('config', 'config.json'),
    ],
    notes:
      'Substitute for GRiT (VBench), which has no ONNX export; config.json carries the COCO id2label map.',
  },
];

/** The files a model needs at one precision. */
export function filesFor(entry: ModelManifestEntry, precision: Precision): ManifestFile[] {
  return entry.files.filter((f) => f.precision === null || f.precision === precision);
}

export function isPrecision(value: string): value is Precision {
  return (PRECISIONS as readonly string[]).includes(value);
}
