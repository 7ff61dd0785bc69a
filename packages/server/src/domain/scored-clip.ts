/** One scored clip of a Bench run on one dimension, with what the statistics group it by. */
import type { DimensionId } from '@vesta/engine';

export interface ScoredClip {
  dimension: DimensionId;
  value: number;
  method: string;
  methodVersion: string;
  /**
   * The suite prompt it was generated from (`<clip group>-<nn>`; the prompt's text for clips of
   * runs planned before prompt ids were recorded): the cluster a bootstrap resamples.
   */
  promptId: string;
  promptText: string;
  /** The clip group (the stratum: each group's prompts are resampled on their own). */
  group: string;
  /** Which of the prompt's samples (0 … samples_per_prompt − 1): with the prompt, the pairing key. */
  sampleIndex: number;
  videoId: string;
}

/** Resamples Vesta draws for every interval and permutation test. */
export const RESAMPLES = 10_000;
/** Confidence level of every interval. */
export const CONFIDENCE_LEVEL = 0.95;
