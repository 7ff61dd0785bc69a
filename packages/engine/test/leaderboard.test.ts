import { describe, expect, it } from 'vitest';
import { computeLeaderboard, computeLeaderboardPresent, normalise } from '../src/leaderboard.js';
import type { DimensionId } from '../src/contract.js';

// VBench's worked example (vbench-methods.md §3.4).
const RAW: Record<DimensionId, number> = {
  subject_consistency: 0.9673,
  background_consistency: 0.9623,
  temporal_flickering: 0.9894,
  motion_smoothness: 0.9845,
  dynamic_degree: 0.6222,
  aesthetic_quality: 0.6345,
  imaging_quality: 0.7048,
  object_class: 0.8617,
  multiple_objects: 0.7491,
  human_action: 0.782,
  color: 0.9014,
  spatial_relationship: 0.8071,
  scene: 0.3132,
  appearance_style: 0.1943,
  temporal_style: 0.24,
  overall_consistency: 0.26,
};

const NORMALISED: Record<DimensionId, number> = {
  subject_consistency: 0.9617,
  background_consistency: 0.949,
  temporal_flickering: 0.9714,
  motion_smoothness: 0.9554,
  dynamic_degree: 0.3111,
  aesthetic_quality: 0.6345,
  imaging_quality: 0.7048,
  object_class: 0.8617,
  multiple_objects: 0.7491,
  human_action: 0.782,
  color: 0.9014,
  spatial_relationship: 0.8071,
  scene: 0.3809,
  appearance_style: 0.6796,
  temporal_style: 0.6593,
  overall_consistency: 0.7143,
};

describe('VBench leaderboard', () => {
  it('reproduces the worked example per dimension', () => {
    for (const [id, raw] of Object.entries(RAW) as Array<[DimensionId, number]>) {
      expect(normalise(id, raw), id).toBeCloseTo(NORMALISED[id], 4);
    }
  });

  it('reproduces Quality 0.8443, Semantic 0.7262, Total 0.8207', () => {
    const lb = computeLeaderboard(RAW);
    expect(lb.quality.toFixed(4)).toBe('0.8443');
    expect(lb.semantic.toFixed(4)).toBe('0.7262');
    expect(lb.total.toFixed(4)).toBe('0.8207');
    expect(lb.missing).toEqual([]);
  });

  it('does not clamp', () => {
    expect(normalise('subject_consistency', 0.1)).toBeLessThan(0);
    expect(normalise('scene', 0.9)).toBeGreaterThan(1);
  });

  it('counts missing dimensions as raw 0, like cal_final_score.py', () => {
    const { temporal_flickering: _omit, ...rest } = RAW;
    const lb = computeLeaderboard(rest);
    expect(lb.missing).toEqual(['temporal_flickering']);
    const expected = -0.6293 / (1 - 0.6293);
    expect(lb.perDimension.temporal_flickering).toBeCloseTo(expected, 12);
    const full = computeLeaderboard(RAW);
    expect(lb.quality).toBeCloseTo(
      full.quality + (expected - full.perDimension.temporal_flickering) / 6.5,
      12,
    );
  });

  it('offers a present-only variant for partial runs', () => {
    const quality = {
      subject_consistency: 0.9673,
      dynamic_degree: 1,
    };
    const lb = computeLeaderboardPresent(quality);
    expect(lb.semantic).toBeNull();
    // (0.9617 + 0.5) / 1.5
    expect(lb.quality!).toBeCloseTo((normalise('subject_consistency', 0.9673) + 0.5) / 1.5, 12);
    expect(lb.total).toBe(lb.quality);
    expect(lb.missing).toHaveLength(14);
    const all = computeLeaderboardPresent(RAW);
    const exact = computeLeaderboard(RAW);
    expect(all.total).toBeCloseTo(exact.total, 12);
    expect(computeLeaderboardPresent({}).total).toBeNull();
  });

  it('rejects non-finite aggregates', () => {
    expect(() => computeLeaderboard({ color: Number.NaN })).toThrow(/finite/);
  });
});
