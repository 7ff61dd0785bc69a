/**
 * The dimension registry: VBench's 16 dimensions with their methods, requirements, leaderboard
 * normalisation and the workflows that use them. Availability is computed per call from the
 * methods this build implements (`METHODS`) and, for model-backed methods, from a caller-supplied
 * model check (the model store answers it; without one, no model counts as present).
 */
import { DIMENSION_IDS } from './contract.js';
import type {
  AuxiliaryKey,
  DimensionCategory,
  DimensionId,
  DimensionInfo,
  LeaderboardNormalisation,
  MethodId,
  MethodInfo,
} from './contract.js';
import type { AnyMethod } from './method-contract.js';
import { METHODS } from './dimensions/index.js';
import { MODEL_METHODS, SUBSTITUTE_METHOD_IDS, SUBSTITUTE_SPECS } from './dimensions/model/index.js';

/** Static description of one method, before availability is known. */
export interface MethodSpec {
  id: MethodId;
  version: string;
  description: string;
  models: string[];
  auxiliary: AuxiliaryKey[];
  prompt: boolean;
}

interface DimensionSpec {
  id: DimensionId;
  name: string;
  description: string;
  category: DimensionCategory;
  range: { min: number; max: number };
  normalisation: LeaderboardNormalisation;
  workflows: Array<'score' | 'rank' | 'bench'>;
  methods: MethodSpec[];
}

/** Model ids (model manifest, issue #6) of VBench's own checkpoints. */
export const VBENCH_MODEL_IDS = {
  dino: 'dino-vitb16',
  clipB32: 'clip-vit-b32',
  clipL14: 'clip-vit-l14',
  laionAesthetic: 'laion-aesthetic-v1-linear',
  musiq: 'musiq-spaq',
  raft: 'raft-things',
  amt: 'amt-s',
  grit: 'grit-b-densecap-objectdet',
  umt: 'umt-l16-k400',
  tag2text: 'tag2text-swin-14m',
  viclip: 'viclip-l14-internvid-10m-flt',
} as const;

const M = VBENCH_MODEL_IDS;
const ALL: Array<'score' | 'rank' | 'bench'> = ['score', 'rank', 'bench'];
const BENCH: Array<'score' | 'rank' | 'bench'> = ['bench'];
const UNIT = { min: 0, max: 1 };
const COSINE = { min: -1, max: 1 };

function vbench(
  description: string,
  models: string[],
  auxiliary: AuxiliaryKey[] = [],
  prompt = false,
): MethodSpec {
  return { id: 'vbench', version: '0.1.5', description, models, auxiliary, prompt };
}

function lite(version: string, description: string): MethodSpec {
  return { id: 'lite', version, description, models: [], auxiliary: [], prompt: false };
}

function norm(min: number, max: number, weight = 1): LeaderboardNormalisation {
  return { min, max, weight };
}

/**
 * Method versions of the model-free methods live with their implementations; the spec here only
 * carries descriptions. `version` is overwritten from the implementation when one is shipped.
 */
const SPECS: readonly DimensionSpec[] = [
  {
    id: 'subject_consistency',
    name: 'Subject consistency',
    description: "Whether the main subject's appearance stays the same through the clip.",
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.1462, 1.0),
    workflows: ALL,
    methods: [
      vbench(
        'VBench: DINO ViT-B/16 CLS features of every frame; mean over t≥1 of ½[max(0,cos(f_t,f_t−1)) + max(0,cos(f_t,f_0))].',
        [M.dino],
      ),
      lite(
        '1',
        'Model-free: the VBench formula over centre-weighted classical frame descriptors (grid colour and gradient-orientation histograms, zero-mean) instead of DINO features.',
      ),
    ],
  },
  {
    id: 'background_consistency',
    name: 'Background consistency',
    description: 'Whether the background scene stays the same through the clip.',
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.2615, 1.0),
    workflows: ALL,
    methods: [
      vbench(
        'VBench: CLIP ViT-B/32 image features of every frame; same first/previous-frame cosine formula as subject consistency.',
        [M.clipB32],
      ),
      lite(
        '2',
        'Model-free: the VBench formula over border-weighted colour-layout descriptors (soft grid and global colour histograms, Hellinger kernel, zero-mean) instead of CLIP features.',
      ),
    ],
  },
  {
    id: 'temporal_flickering',
    name: 'Temporal flickering',
    description:
      'Absence of frame-to-frame flicker: (255 − mean absolute difference of consecutive frames)/255.',
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.6293, 1.0),
    workflows: ALL,
    methods: [
      vbench(
        "VBench's exact formula on all frames at native resolution (no model). VBench only scores clips that pass its RAFT static filter; Vesta scores any clip (the filter is not applied).",
        [],
      ),
    ],
  },
  {
    id: 'motion_smoothness',
    name: 'Motion smoothness',
    description:
      'How well each odd frame is predicted by interpolating its even neighbours: (255 − MAE)/255.',
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.706, 0.9975),
    workflows: ALL,
    methods: [
      vbench('VBench: AMT-S frame interpolation of the odd frames from the even frames; (255 − MAE)/255.', [
        M.amt,
      ]),
      lite(
        '1',
        "Model-free: VBench's protocol with a classical interpolator (pyramidal dense optical flow in both directions, both neighbours warped halfway and blended).",
      ),
    ],
  },
  {
    id: 'dynamic_degree',
    name: 'Dynamic degree',
    description:
      'Whether the clip contains real motion (1) or is nearly static (0); over many clips, the fraction that move.',
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.0, 1.0, 0.5),
    workflows: ALL,
    methods: [
      vbench(
        'VBench: RAFT optical flow on frames at about 8 fps; top-5 % magnitude per pair against a resolution-scaled threshold, counted against round(4N/16).',
        [M.raft],
      ),
      lite(
        '1',
        "Model-free: VBench's sampling, threshold and count rule on a classical pyramidal dense optical flow (computed on a downscaled grey frame, magnitudes rescaled to native resolution).",
      ),
    ],
  },
  {
    id: 'aesthetic_quality',
    name: 'Aesthetic quality',
    description: 'Artistic and aesthetic appeal of the frames.',
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: ALL,
    methods: [
      vbench('VBench: CLIP ViT-L/14 image embedding → LAION aesthetic linear head, /10, mean over frames.', [
        M.clipL14,
        M.laionAesthetic,
      ]),
      lite(
        '1',
        'Model-free proxy (not a learned aesthetic model): colourfulness, contrast, exposure balance, sharpness and cleanness of the 224 px view CLIP sees, combined into [0, 1].',
      ),
    ],
  },
  {
    id: 'imaging_quality',
    name: 'Imaging quality',
    description:
      'Absence of low-level distortions: blur, noise, compression artefacts, over- or under-exposure.',
    category: 'quality',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: ALL,
    methods: [
      vbench('VBench: MUSIQ (SPAQ checkpoint) on every frame (longer side ≤ 512), mean /100.', [M.musiq]),
      lite(
        '1',
        "Model-free no-reference measure: sharpness (edge blur at MUSIQ's scales), noise, blockiness, exposure and contrast combined into [0, 1].",
      ),
    ],
  },
  {
    id: 'object_class',
    name: 'Object class',
    description: 'Whether the requested object class appears.',
    category: 'semantic',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: GRiT-B object detection on 16 frames; fraction of frames containing the object.',
        [M.grit],
        ['object'],
      ),
    ],
  },
  {
    id: 'multiple_objects',
    name: 'Multiple objects',
    description: 'Whether two requested objects appear together.',
    category: 'semantic',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: GRiT-B object detection on 16 frames; fraction of frames containing both objects.',
        [M.grit],
        ['object'],
      ),
    ],
  },
  {
    id: 'human_action',
    name: 'Human action',
    description: 'Whether the requested human action (a Kinetics-400 class) is shown.',
    category: 'semantic',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: UMT ViT-L/16 Kinetics-400 classifier on 16 frames; 1 when the action is in the top 5 with sigmoid ≥ 0.85.',
        [M.umt],
        ['action'],
      ),
    ],
  },
  {
    id: 'color',
    name: 'Color',
    description: 'Whether the object has the requested colour.',
    category: 'semantic',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: GRiT-B dense captions on 16 frames; frames with the right colour among frames with the object.',
        [M.grit],
        ['color'],
        true,
      ),
    ],
  },
  {
    id: 'spatial_relationship',
    name: 'Spatial relationship',
    description: 'Whether two objects are placed in the requested spatial relation.',
    category: 'semantic',
    range: UNIT,
    normalisation: norm(0.0, 1.0),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: GRiT-B boxes on 16 frames; per-frame best pair score from centre offset and IoU.',
        [M.grit],
        ['relationship'],
      ),
    ],
  },
  {
    id: 'scene',
    name: 'Scene',
    description: 'Whether the requested scene is depicted.',
    category: 'semantic',
    range: UNIT,
    normalisation: norm(0.0, 0.8222),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: Tag2Text captions of 16 frames; fraction whose caption contains every word of the scene.',
        [M.tag2text],
        ['scene'],
      ),
    ],
  },
  {
    id: 'appearance_style',
    name: 'Appearance style',
    description: 'Whether the frames look like the requested style.',
    category: 'semantic',
    range: COSINE,
    normalisation: norm(0.0009, 0.2855),
    workflows: BENCH,
    methods: [
      vbench(
        'VBench: CLIP ViT-B/32 cosine between every frame and the style phrase, mean over frames.',
        [M.clipB32],
        ['appearance_style'],
      ),
    ],
  },
  {
    id: 'temporal_style',
    name: 'Temporal style',
    description: 'Whether camera motion and temporal effects match the prompt.',
    category: 'semantic',
    range: COSINE,
    normalisation: norm(0.0, 0.364),
    workflows: ALL,
    methods: [
      vbench(
        'VBench: ViCLIP ViT-L/14 cosine between 8 uniform frames and the full prompt.',
        [M.viclip],
        [],
        true,
      ),
    ],
  },
  {
    id: 'overall_consistency',
    name: 'Overall consistency',
    description: 'Overall agreement between the clip and its prompt.',
    category: 'semantic',
    range: COSINE,
    normalisation: norm(0.0, 0.364),
    workflows: ALL,
    methods: [
      vbench(
        'VBench: ViCLIP ViT-L/14 cosine between 8 uniform frames and the full prompt.',
        [M.viclip],
        [],
        true,
      ),
    ],
  },
];

export interface RegistryOptions {
  /** Implemented methods (default: this build's model-free `METHODS`, plus any given here). */
  methods?: readonly AnyMethod[];
  /** Whether a model is installed (or fetchable); default: no model is. */
  modelAvailable?: (modelId: string) => boolean;
}

function implementedMethods(options: RegistryOptions | undefined): readonly AnyMethod[] {
  return [...METHODS, ...MODEL_METHODS, ...(options?.methods ?? [])];
}

function methodInfo(
  dimension: DimensionId,
  spec: MethodSpec,
  options: RegistryOptions | undefined,
): MethodInfo {
  const impl = implementedMethods(options).find((m) => m.dimension === dimension && m.id === spec.id);
  const modelAvailable = options?.modelAvailable ?? (() => false);
  const missing = spec.models.filter((id) => !modelAvailable(id));
  const info: MethodInfo = {
    id: spec.id,
    version: impl?.version ?? spec.version,
    description: spec.description,
    requires: { models: [...spec.models], auxiliary: [...spec.auxiliary], prompt: spec.prompt },
    available: impl !== undefined && missing.length === 0,
  };
  if (!impl) {
    info.unavailableReason =
      spec.models.length > 0
        ? `model store not installed yet: requires ${spec.models.join(', ')}`
        : 'this engine build does not ship this method';
  } else if (missing.length > 0) {
    info.unavailableReason = `models not installed: ${missing.join(', ')} (fetch them with: vesta models pull ${missing.join(' ')})`;
  }
  return info;
}

/** Preference order for the default: VBench's own method first, then the model-free one. */
const PREFERENCE: MethodId[] = ['vbench', ...SUBSTITUTE_METHOD_IDS, 'lite'];

function buildInfo(spec: DimensionSpec, options: RegistryOptions | undefined): DimensionInfo {
  const methods = [...spec.methods, ...(SUBSTITUTE_SPECS[spec.id] ?? [])].map((m) =>
    methodInfo(spec.id, m, options),
  );
  const available = methods.filter((m) => m.available);
  available.sort((a, b) => rank(a.id) - rank(b.id));
  return {
    id: spec.id,
    name: spec.name,
    description: spec.description,
    category: spec.category,
    higherIsBetter: true,
    range: { ...spec.range },
    methods,
    defaultMethod: available[0]?.id ?? null,
    normalisation: { ...spec.normalisation },
    workflows: [...spec.workflows],
  };
}

function rank(id: MethodId): number {
  const i = PREFERENCE.indexOf(id);
  return i < 0 ? PREFERENCE.length : i;
}

/** All 16 dimensions in VBench's order. */
export function listDimensions(options?: RegistryOptions): DimensionInfo[] {
  return SPECS.map((s) => buildInfo(s, options));
}

export function getDimension(id: string, options?: RegistryOptions): DimensionInfo | undefined {
  const spec = SPECS.find((s) => s.id === id);
  return spec ? buildInfo(spec, options) : undefined;
}

export function isDimensionId(s: unknown): s is DimensionId {
  return typeof s === 'string' && (DIMENSION_IDS as readonly string[]).includes(s);
}

/** Leaderboard constants of one dimension (VBench `scripts/constant.py`). */
export function normalisationOf(id: DimensionId): LeaderboardNormalisation {
  const spec = SPECS.find((s) => s.id === id);
  if (!spec) throw new RangeError(`unknown dimension ${String(id)}`);
  return { ...spec.normalisation };
}

export function categoryOf(id: DimensionId): DimensionCategory {
  const spec = SPECS.find((s) => s.id === id);
  if (!spec) throw new RangeError(`unknown dimension ${String(id)}`);
  return spec.category;
}
