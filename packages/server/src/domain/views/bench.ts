/**
 * What the Bench services return: runs, their clips and log lines, pages of each, and the create
 * request. Checked against the HTTP schemas (`http/routes/bench/schemas.ts`) at compile time.
 */
import type { BenchLogLevel, BenchLogSource, BenchTaskState } from '../../db/schema-bench.js';
import type { BenchStatus } from '../bench-state.js';
import type { PromptNoticeView, UnscoredDimensionView } from './score-rank.js';

export interface BenchProgress {
  /** Clips the run will generate (prompt × sample); 0 until the run's tasks are planned. */
  tasks_total: number;
  /** Clips uploaded by a runner. */
  tasks_generated: number;
  /** Clips generated and evaluated. */
  tasks_done: number;
  /** Clips that failed for good. */
  tasks_failed: number;
  /** Clips the run expects to evaluate: its tasks minus those failed or cancelled. */
  clips_total: number;
  /** Clips whose evaluation finished (scored, or its scoring failed). */
  clips_evaluated: number;
}

export interface BenchRunView {
  id: string;
  name: string;
  dimensions: string[];
  model_id: string;
  runner_id: string | null;
  samples_per_prompt: number;
  prompts_per_dimension: number | null;
  suite_version: string | null;
  status: BenchStatus;
  progress: BenchProgress;
  error: { code: string; detail: string } | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Set when none of the run's scores reads the prompts because their models are not on the server. */
  prompt_notice: PromptNoticeView | null;
  /** The run's dimensions that could not be scored on this server, why, and the fixing command. */
  unscored_dimensions: UnscoredDimensionView[];
  scorecard: BenchScorecardView | null;
}

/** One dimension of a scorecard: the mean of its clips, with its 95 % interval. */
export interface ScorecardDimensionView {
  dimension: string;
  category: 'quality' | 'semantic';
  score: number | null;
  normalised_score: number | null;
  clips: number;
  prompts: number;
  methods: string[];
  ci95_low: number | null;
  ci95_high: number | null;
}

/** Quality, Semantic or Total, with its 95 % interval (on the normalised scale). */
export interface ScorecardAggregateView {
  name: 'Quality' | 'Semantic' | 'Total';
  value: number | null;
  clips: number;
  prompts: number;
  /** Some dimension of its VBench group has no score (averaged over those that have). */
  partial: boolean;
  ci95_low: number | null;
  ci95_high: number | null;
}

export interface BenchScorecardView {
  /** The confidence level of every interval (0.95). */
  level: number;
  /** Bootstrap replicates drawn. */
  resamples: number;
  /** How the intervals are made (`prompt_bootstrap_t`: see docs/statistics.md). */
  interval_method: string;
  /** True once the run has ended (the scorecard no longer changes). */
  final: boolean;
  dimensions: ScorecardDimensionView[];
  aggregates: ScorecardAggregateView[];
}

export interface PageRequest {
  /** From 1. */
  page: number;
  limit: number;
}

export interface PageOf<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export interface BenchVideoView {
  task_id: string;
  seq: number;
  prompt: string;
  auxiliary: Record<string, string> | null;
  prompt_id: string | null;
  clip_group: string | null;
  dimensions: string[];
  sample_index: number;
  seed: number;
  state: BenchTaskState;
  runner_id: string | null;
  attempts: number;
  video_id: string | null;
  error: { code: string; detail: string } | null;
  scores: Array<{ dimension: string; value: number; method: string; method_version: string }>;
  failures: Array<{ dimension: string; code: string; detail: string }>;
}

export interface BenchLogView {
  seq: number;
  time: string;
  source: BenchLogSource;
  level: BenchLogLevel;
  message: string;
}

export interface CreateBenchRunInput {
  name: string;
  dimensions: string[];
  model_id: string;
  runner_id?: string | undefined;
  samples_per_prompt?: number | undefined;
  prompts_per_dimension?: number | undefined;
}
