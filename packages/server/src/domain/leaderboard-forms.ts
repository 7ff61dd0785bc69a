/**
 * VBench's Quality, Semantic and Total as linear forms of the per-dimension means, so that a
 * bootstrap replicate of the means gives a replicate of each aggregate by a dot product (the
 * aggregates' intervals come from the same resample as the dimensions', never from combining
 * per-dimension intervals).
 *
 * With the dimensions present, n_d = w_d·(x_d − min_d)/(max_d − min_d) is linear in x_d; Quality =
 * Σ_Q n_d / Σ_Q w_d, Semantic the same over the semantic ones, Total = (4·Quality + Semantic)/5,
 * or the one group present alone — exactly `computeLeaderboardPresent` of @vesta/engine (a test
 * holds the two together).
 */
import { QUALITY_WEIGHT, SEMANTIC_WEIGHT, categoryOf, normalisationOf } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';

export type AggregateName = 'Quality' | 'Semantic' | 'Total';
export const AGGREGATE_NAMES: readonly AggregateName[] = ['Quality', 'Semantic', 'Total'];

/** intercept + Σ coefficient[d]·mean_d. */
export interface LinearForm {
  intercept: number;
  coefficients: Map<DimensionId, number>;
}

function groupForm(present: readonly DimensionId[], category: 'quality' | 'semantic'): LinearForm | null {
  const dims = present.filter((d) => categoryOf(d) === category);
  if (dims.length === 0) return null;
  const weights = dims.reduce((sum, d) => sum + normalisationOf(d).weight, 0);
  const form: LinearForm = { intercept: 0, coefficients: new Map() };
  for (const d of dims) {
    const { min, max, weight } = normalisationOf(d);
    const slope = weight / (max - min) / weights;
    form.coefficients.set(d, slope);
    form.intercept -= slope * min;
  }
  return form;
}

function mix(parts: Array<[LinearForm, number]>): LinearForm {
  const total = parts.reduce((sum, [, w]) => sum + w, 0);
  const out: LinearForm = { intercept: 0, coefficients: new Map() };
  for (const [form, w] of parts) {
    out.intercept += (w / total) * form.intercept;
    for (const [d, c] of form.coefficients)
      out.coefficients.set(d, (out.coefficients.get(d) ?? 0) + (w / total) * c);
  }
  return out;
}

/** The three aggregates over the dimensions `present` (null where a group has none). */
export function leaderboardForms(present: readonly DimensionId[]): Record<AggregateName, LinearForm | null> {
  const quality = groupForm(present, 'quality');
  const semantic = groupForm(present, 'semantic');
  const total =
    quality && semantic
      ? mix([
          [quality, QUALITY_WEIGHT],
          [semantic, SEMANTIC_WEIGHT],
        ])
      : (quality ?? semantic);
  return { Quality: quality, Semantic: semantic, Total: total };
}

/** The form's value at `means`. */
export function evaluateForm(form: LinearForm, means: ReadonlyMap<DimensionId, number>): number {
  let x = form.intercept;
  for (const [d, c] of form.coefficients) x += c * means.get(d)!;
  return x;
}
