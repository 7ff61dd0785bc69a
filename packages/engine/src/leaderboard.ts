/**
 * VBench leaderboard totals (vbench-methods.md §3; VBench `scripts/cal_final_score.py`).
 *
 * n_d = w_d·(x_d − min_d)/(max_d − min_d), not clamped.
 * Quality = Σ_{Q} n_d / Σ_{Q} w_d (6.5), Semantic = Σ_{S} n_d / Σ_{S} w_d (9),
 * Total = (4·Quality + 1·Semantic)/5.
 */
import { DIMENSION_IDS } from './contract.js';
import type { DimensionId } from './contract.js';
import { categoryOf, normalisationOf } from './registry.js';

export const QUALITY_WEIGHT = 4;
export const SEMANTIC_WEIGHT = 1;

/** Weighted normalised value of one raw aggregate: weight·(raw − min)/(max − min), not clamped. */
export function normalise(dimension: DimensionId, raw: number): number {
  const { min, max, weight } = normalisationOf(dimension);
  return (weight * (raw - min)) / (max - min);
}

export interface Leaderboard {
  /** Normalised × weight, per dimension. */
  perDimension: Record<DimensionId, number>;
  quality: number;
  semantic: number;
  total: number;
  /** Dimensions that were absent from the input and counted as raw 0. */
  missing: DimensionId[];
}

export interface PartialLeaderboard {
  /** Normalised × weight for the dimensions present. */
  perDimension: Partial<Record<DimensionId, number>>;
  /** null when no dimension of the group is present. */
  quality: number | null;
  semantic: number | null;
  /** Weighted 4:1 over the groups that have a value; null when neither has. */
  total: number | null;
  missing: DimensionId[];
}

function checkRaw(dimension: string, raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    throw new RangeError(`leaderboard: aggregate for ${dimension} must be a finite number`);
  }
  return raw;
}

/**
 * Exactly VBench's `cal_final_score.py`: a dimension absent from `aggregates` counts as a raw value
 * of 0 (so it normalises to −min/(max − min)·weight, which is negative when min > 0).
 */
export function computeLeaderboard(aggregates: Partial<Record<DimensionId, number>>): Leaderboard {
  const perDimension = {} as Record<DimensionId, number>;
  const missing: DimensionId[] = [];
  const sums = { quality: 0, semantic: 0 };
  const weights = { quality: 0, semantic: 0 };
  for (const id of DIMENSION_IDS) {
    const given = aggregates[id];
    if (given === undefined) missing.push(id);
    const raw = given === undefined ? 0 : checkRaw(id, given);
    const n = normalise(id, raw);
    perDimension[id] = n;
    const cat = categoryOf(id);
    sums[cat] += n;
    weights[cat] += normalisationOf(id).weight;
  }
  const quality = sums.quality / weights.quality;
  const semantic = sums.semantic / weights.semantic;
  const total = (QUALITY_WEIGHT * quality + SEMANTIC_WEIGHT * semantic) / (QUALITY_WEIGHT + SEMANTIC_WEIGHT);
  return { perDimension, quality, semantic, total, missing };
}

/**
 * Variant for partial runs (not VBench's): each group is averaged over the dimensions present,
 * Σ n_d / Σ w_d over present d; the total combines the groups that have a value with weights 4:1.
 */
export function computeLeaderboardPresent(
  aggregates: Partial<Record<DimensionId, number>>,
): PartialLeaderboard {
  const perDimension: Partial<Record<DimensionId, number>> = {};
  const missing: DimensionId[] = [];
  const sums = { quality: 0, semantic: 0 };
  const weights = { quality: 0, semantic: 0 };
  for (const id of DIMENSION_IDS) {
    const given = aggregates[id];
    if (given === undefined) {
      missing.push(id);
      continue;
    }
    const n = normalise(id, checkRaw(id, given));
    perDimension[id] = n;
    const cat = categoryOf(id);
    sums[cat] += n;
    weights[cat] += normalisationOf(id).weight;
  }
  const quality = weights.quality > 0 ? sums.quality / weights.quality : null;
  const semantic = weights.semantic > 0 ? sums.semantic / weights.semantic : null;
  let total: number | null = null;
  if (quality !== null && semantic !== null) {
    total = (QUALITY_WEIGHT * quality + SEMANTIC_WEIGHT * semantic) / (QUALITY_WEIGHT + SEMANTIC_WEIGHT);
  } else {
    total = quality ?? semantic;
  }
  return { perDimension, quality, semantic, total, missing };
}
