/**
 * What the comparison of Bench runs answers (`GET /api/v1/bench/compare`) and what a model's
 * baseline run is. Checked against the HTTP schemas at compile time (view-contracts.ts).
 */

export interface CompareRunView {
  id: string;
  name: string;
  model_id: string;
  status: string;
  suite_version: string | null;
  /** Clips of the run with at least one score. */
  clips_scored: number;
  /** Clips the run expects to evaluate. */
  clips_total: number;
  /** `completed`, or e.g. `evaluating: 340 of 1000 clips scored`. */
  label: string;
}

export interface CompareRowView {
  /** A dimension id, or `Quality`, `Semantic`, `Total` (recomputed over the compared dimensions). */
  name: string;
  kind: 'dimension' | 'aggregate';
  higher_is_better: boolean;
  baseline: number;
  candidate: number;
  /** candidate − baseline. */
  delta: number;
  ci95_low: number | null;
  ci95_high: number | null;
  p_value: number;
  p_adjusted: number;
  /** The interval leaves out 0 and the adjusted p is below 0.05. */
  significant: boolean;
  pairs: number | null;
  baseline_clips: number;
  candidate_clips: number;
  prompts: number;
  partial: boolean;
}

export interface ComparePromptView {
  prompt_id: string;
  prompt: string;
  clip_group: string;
  delta: number;
  dimensions: Array<{ dimension: string; baseline: number; candidate: number; delta: number }>;
  baseline_clips: Array<{ sample_index: number; video_id: string }>;
  candidate_clips: Array<{ sample_index: number; video_id: string }>;
}

export interface CompareGateView {
  /** DELTA: how much worse a row may be before it counts as a regression (its own units). */
  margin: number;
  /** One-sided level, family-wise over `rows` (0.025). */
  alpha: number;
  verdict: 'pass' | 'regression' | 'not_comparable';
  statement: string;
  rows: Array<{
    name: string;
    delta: number;
    ci95_low: number | null;
    ci95_high: number | null;
    p_value: number;
    p_adjusted: number;
    regressed: boolean;
  }>;
  regressions: string[];
}

export interface PairComparisonView {
  baseline_id: string;
  candidate_id: string;
  mode: 'paired' | 'unpaired';
  mode_reason: string;
  unmatched_clips: { baseline: number; candidate: number };
  rows: CompareRowView[];
  prompts: ComparePromptView[];
}

export interface BenchComparisonView {
  baseline_id: string;
  level: number;
  resamples: number;
  interval_method: string;
  correction: { method: 'holm' | 'none'; statement: string };
  runs: CompareRunView[];
  comparable: boolean;
  dimensions: string[];
  not_comparable: Array<{ dimension: string; reason: string }>;
  comparisons: PairComparisonView[];
  gate: CompareGateView | null;
}

export interface CompareInput {
  runs: string[];
  dimensions?: string[] | undefined;
  fail_on_regression?: number | undefined;
  /** At most this many per-prompt rows per comparison (largest drops); all when absent. */
  prompt_limit?: number | undefined;
}

export interface ModelBaselineView {
  model_id: string;
  run_id: string | null;
  set_at: string | null;
}
