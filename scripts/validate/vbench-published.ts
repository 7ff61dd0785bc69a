/**
 * VBench's published per-model results for the generators that have clips in the shared corpus,
 * on the seven quality dimensions, as printed (percent).
 *
 * Source: VBench++ (Huang et al., arXiv 2411.13503v1), Table II, the text-to-video rows. Every value
 * below was read from the table's HTML rendering (table id `S3.T2`, rows LaVie, ModelScope,
 * Show-1, VideoCrafter-2.0, Gen-2, AnimateDiff-v2 and CogVideoX-2B), as reproduced in the
 * deep-diver/ai-paper-reviewer repository (content/paper-reviews/2411.13503/index.md, commit
 * 802e7fa0d035afe7fac72037dc235369d4f79a8a), and cross-checked against the four values the Vesta
 * issue quotes from the paper (Gen-2 67.42, Show-1 58.66, ModelScope 58.57, VideoCrafter-2.0 67.22
 * imaging quality). The VBench leaderboard itself could not be read from here, so no value was
 * checked against it.
 *
 * Left out because no published per-dimension value could be found for the exact model: ZeroScope
 * v2, Open-Sora 1.0, Open-Sora-Plan v0 (an early unconditional SkyTimelapse model) and AnimateDiff
 * v1 (Table II lists AnimateDiff-v2 only). Table II's "CogVideo" is a different, older model than
 * CogVideoX-2B and is not used.
 */
import type { DimensionId } from '../../packages/engine/src/index.js';

export const PUBLISHED_SOURCE =
  'VBench++ (arXiv 2411.13503v1) Table II, text-to-video rows; read from the paper HTML (table S3.T2)';

export type QualityDimension = Extract<
  DimensionId,
  | 'subject_consistency'
  | 'background_consistency'
  | 'temporal_flickering'
  | 'motion_smoothness'
  | 'dynamic_degree'
  | 'aesthetic_quality'
  | 'imaging_quality'
>;

export const QUALITY_DIMENSIONS: readonly QualityDimension[] = [
  'subject_consistency',
  'background_consistency',
  'temporal_flickering',
  'motion_smoothness',
  'dynamic_degree',
  'aesthetic_quality',
  'imaging_quality',
];

export interface PublishedModel {
  /** Corpus file-name prefix (the part before `__`). */
  corpusPrefix: string;
  /** The model's name in Table II. */
  vbenchName: string;
  /** Percent, as printed. */
  values: Record<QualityDimension, number>;
}

const row = (
  corpusPrefix: string,
  vbenchName: string,
  v: [number, number, number, number, number, number, number],
): PublishedModel => ({
  corpusPrefix,
  vbenchName,
  values: {
    subject_consistency: v[0],
    background_consistency: v[1],
    temporal_flickering: v[2],
    motion_smoothness: v[3],
    dynamic_degree: v[4],
    aesthetic_quality: v[5],
    imaging_quality: v[6],
  },
});

// Columns: subject, background, temporal flickering, motion smoothness, dynamic degree, aesthetic, imaging.
export const VBENCH_PUBLISHED: readonly PublishedModel[] = [
  row('lavie', 'LaVie', [91.41, 97.47, 98.3, 96.38, 49.72, 54.94, 61.9]),
  row('modelscope-t2v', 'ModelScope', [89.87, 95.29, 98.28, 95.79, 66.39, 52.06, 58.57]),
  row('show-1', 'Show-1', [95.53, 98.02, 99.12, 98.24, 44.44, 57.35, 58.66]),
  row('videocrafter2', 'VideoCrafter-2.0', [96.85, 98.22, 98.41, 97.73, 42.5, 63.13, 67.22]),
  row('runway-gen2', 'Gen-2', [97.61, 97.61, 99.56, 99.58, 18.89, 66.96, 67.42]),
  row('animatediff-v2-mm_sd_v15_v2', 'AnimateDiff-v2', [95.3, 97.68, 98.75, 97.76, 40.83, 67.16, 70.1]),
  row('cogvideox-2b', 'CogVideoX-2B', [96.78, 96.63, 98.89, 97.73, 59.86, 60.82, 61.68]),
];
