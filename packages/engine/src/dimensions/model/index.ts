/**
 * The model-backed methods and their registry descriptions. Method ids: `vbench` where VBench's
 * own model and protocol are used (DINO, CLIP B/32, CLIP L/14 + LAION head); otherwise a named
 * substitute: `clip-iqa`, `clip`, `detr`, `raft`, `rife` (see docs/dimensions.md).
 */
import type { AuxiliaryKey, DimensionId, MethodId } from '../../contract.js';
import type { ModelMethod } from '../../method-contract.js';
import { aestheticQualityVbench } from './aesthetic.js';
import {
  appearanceStyleVbench,
  humanActionClip,
  imagingQualityClipIqa,
  overallConsistencyClip,
  sceneClip,
  temporalStyleClip,
} from './clip-text.js';
import { MODEL_IDS } from './common.js';
import { backgroundConsistencyVbench, subjectConsistencyVbench } from './consistency.js';
import { colorDetr, multipleObjectsDetr, objectClassDetr, spatialRelationshipDetr } from './detection.js';
import { dynamicDegreeRaft, motionSmoothnessRife } from './motion.js';

export const MODEL_METHODS: readonly ModelMethod[] = [
  subjectConsistencyVbench,
  backgroundConsistencyVbench,
  aestheticQualityVbench,
  appearanceStyleVbench,
  imagingQualityClipIqa,
  overallConsistencyClip,
  temporalStyleClip,
  sceneClip,
  humanActionClip,
  objectClassDetr,
  multipleObjectsDetr,
  colorDetr,
  spatialRelationshipDetr,
  dynamicDegreeRaft,
  motionSmoothnessRife,
];

/** Substitute method ids, preferred over `lite` when their models are available. */
export const SUBSTITUTE_METHOD_IDS: readonly MethodId[] = ['clip-iqa', 'clip', 'detr', 'raft', 'rife'];

/** Registry entries of the substitute methods (the `vbench` ones are already in the registry). */
export interface SubstituteSpec {
  id: MethodId;
  version: string;
  description: string;
  models: string[];
  auxiliary: AuxiliaryKey[];
  prompt: boolean;
}

const C = MODEL_IDS.clipB32;
const D = MODEL_IDS.detr;

export const SUBSTITUTE_SPECS: Partial<Record<DimensionId, SubstituteSpec[]>> = {
  imaging_quality: [
    {
      id: 'clip-iqa',
      version: '1',
      description:
        'Substitute for MUSIQ-SPAQ: CLIP-IQA antonym prompts ("Good photo." / "Bad photo.") on CLIP ViT-B/32, softmax(100·cos) of the positive, mean over all frames.',
      models: [C],
      auxiliary: [],
      prompt: false,
    },
  ],
  overall_consistency: [
    {
      id: 'clip',
      version: '1',
      description:
        'Substitute for ViCLIP: cosine between the mean CLIP ViT-B/32 embedding of 8 uniform frames and the prompt.',
      models: [C],
      auxiliary: [],
      prompt: true,
    },
  ],
  temporal_style: [
    {
      id: 'clip',
      version: '1',
      description:
        'Substitute for ViCLIP: cosine between the mean CLIP ViT-B/32 embedding of 8 uniform frames and the prompt (per-frame CLIP sees no motion).',
      models: [C],
      auxiliary: [],
      prompt: true,
    },
  ],
  scene: [
    {
      id: 'clip',
      version: '1',
      description:
        "Substitute for Tag2Text: zero-shot CLIP ViT-B/32 over VBench's scene labels on 16 uniform frames; fraction of frames where the requested scene ranks first.",
      models: [C],
      auxiliary: ['scene'],
      prompt: false,
    },
  ],
  human_action: [
    {
      id: 'clip',
      version: '1',
      description:
        'Substitute for UMT: zero-shot CLIP ViT-B/32 over Kinetics-400 actions on 16 uniform frames; 1 when the requested action has the highest mean probability.',
      models: [C],
      auxiliary: ['action'],
      prompt: false,
    },
  ],
  object_class: [
    {
      id: 'detr',
      version: '1',
      description:
        'Substitute for GRiT: DETR ResNet-50 (COCO) on 16 uniform frames, detections above 0.5; fraction of frames containing the object.',
      models: [D],
      auxiliary: ['object'],
      prompt: false,
    },
  ],
  multiple_objects: [
    {
      id: 'detr',
      version: '1',
      description:
        'Substitute for GRiT: DETR ResNet-50 (COCO) on 16 uniform frames; fraction of frames containing both objects.',
      models: [D],
      auxiliary: ['object'],
      prompt: false,
    },
  ],
  color: [
    {
      id: 'detr',
      version: '1',
      description:
        'Substitute for GRiT dense captions: DETR boxes of the object (auxiliary object, else parsed from the prompt) on 16 uniform frames, named by their dominant HSV colour; frames with the right colour among frames with the object.',
      models: [D],
      auxiliary: ['color'],
      prompt: false,
    },
  ],
  spatial_relationship: [
    {
      id: 'detr',
      version: '1',
      description:
        "Substitute for GRiT: DETR boxes on 16 uniform frames; VBench's per-frame best pair score from centre offset and IoU.",
      models: [D],
      auxiliary: ['relationship'],
      prompt: false,
    },
  ],
  dynamic_degree: [
    {
      id: 'raft',
      version: '1',
      description:
        "RAFT (OpenCV-zoo ONNX, Sintel weights, 360×480) on VBench's ~8 fps sampling; top-5 % flow magnitude per pair against 6·min(H,W)/256 at the flow size; round(4N/16) rule.",
      models: [MODEL_IDS.raft],
      auxiliary: [],
      prompt: false,
    },
  ],
  motion_smoothness: [
    {
      id: 'rife',
      version: '1',
      description:
        'Substitute for AMT-S: RIFE v4.9 interpolates each odd frame from its even neighbours at t = 0.5; (255 − MAE)/255.',
      models: [MODEL_IDS.rife],
      auxiliary: [],
      prompt: false,
    },
  ],
};
