/**
 * Bench tables (owned by the Bench area). Each table is a Kysely table type; the migration that
 * creates them is `migrations/0002-bench.ts`. Timestamps are epoch milliseconds; JSON columns hold
 * serialised text.
 *
 * - `models`: video generators a Bench run can evaluate (added by operators or declared by runners).
 * - `runners`, `runner_models`: registered runners and the models each serves. A runner is online
 *   while its `last_seen_at` is recent.
 * - `bench_runs`: one row per run, its status (see `domain/bench-state.ts`) and error.
 * - `bench_tasks`: one clip to generate and evaluate (prompt × sample); progress is counted here.
 * - `bench_logs`: append-only, timestamped log lines of a run (server, runner and evaluator).
 * - `bench_task_videos`: the clips minted for each task (migration `0003-runners.ts`).
 */
import type { Generated } from 'kysely';
import type { BenchStatus } from '../domain/bench-state.js';
import type { BenchTaskState } from '../domain/clip-lifecycle.js';

/**
 * A model. `id` is the row's key (what runs and runner links reference); `public_id` is the id the
 * API shows. Global models (built in or added by the operator) have no owner and `id = public_id`;
 * a model a user's runner declared is private to `owner_id` (see `services/model-keys.ts`;
 * migration `0005-tenancy.ts`).
 */
export interface ModelsTable {
  id: string;
  name: string;
  description: string;
  created_at: number;
  owner_id: string | null;
  public_id: string;
}

export interface RunnersTable {
  id: string;
  /** The user whose API key registered the runner. */
  user_id: string;
  name: string;
  created_at: number;
  /** Last register, claim or heartbeat; null before the first. */
  last_seen_at: number | null;
  /** Tasks it may hold at once (claims beyond it wait). */
  max_concurrency: Generated<number>;
  /** The runner software's version, as it declared it. */
  version: string | null;
}

export interface RunnerModelsTable {
  runner_id: string;
  model_id: string;
}

export interface BenchRunsTable {
  id: string;
  user_id: string;
  name: string;
  model_id: string;
  /** When set, only this runner may claim the run's tasks; null lets any runner serving the model. */
  runner_id: string | null;
  /** JSON array of dimension ids, in VBench's order. */
  dimensions: string;
  status: BenchStatus;
  error_code: string | null;
  error_detail: string | null;
  created_at: number;
  updated_at: number;
  /** When the run left `queued`. */
  started_at: number | null;
  /** When the run reached a terminal status. */
  finished_at: number | null;
  /** Clips generated per prompt (VBench: 5). */
  samples_per_prompt: Generated<number>;
  /** At most this many prompts per clip group; null: all. */
  prompts_per_dimension: number | null;
  /** The prompt suite the run's tasks were planned from. */
  suite_version: string | null;
  /** The run's task count per state, kept by triggers on `bench_tasks` (migration 0004). */
  n_pending: Generated<number>;
  n_claimed: Generated<number>;
  n_uploaded: Generated<number>;
  n_evaluating: Generated<number>;
  n_done: Generated<number>;
  n_failed: Generated<number>;
  n_cancelled: Generated<number>;
  /**
   * The scorecard with its intervals (JSON `StoredScorecard`), stored when the run ended; null
   * before (migration 0013).
   */
  scorecard: string | null;
}

/** Per user and model, the run new runs of the model are compared with (migration 0013). */
export interface ModelBaselinesTable {
  user_id: string;
  /** The model's row key (`models.id`). */
  model_id: string;
  run_id: string;
  set_at: number;
}

/** A task's states and their transitions: `domain/clip-lifecycle.ts`. */
export type { BenchTaskState };

export interface BenchTasksTable {
  id: string;
  run_id: string;
  /** Position in the run, for stable listing. */
  seq: number;
  prompt: string;
  /** JSON auxiliary prompt info (object, color, …) or null. */
  auxiliary: string | null;
  /** JSON array of the run's dimensions this clip is evaluated on. */
  dimensions: string;
  sample_index: number;
  seed: number;
  state: BenchTaskState;
  /** The runner that holds or held the task. */
  runner_id: string | null;
  attempts: number;
  lease_expires_at: number | null;
  /** The uploaded clip (a row of `videos`), once there is one. */
  video_id: string | null;
  error_code: string | null;
  error_detail: string | null;
  created_at: number;
  updated_at: number;
  /** The current lease's id (the fencing token a runner sends back); null when never claimed. */
  lease_id: string | null;
  /** Attempts before the task fails for good. */
  max_attempts: Generated<number>;
  /** The suite prompt (`<group>-<nn>`) the task generates. */
  prompt_id: string | null;
  /** The clip group whose dimensions the clip is scored on. */
  clip_group: string | null;
  /** Leases of this task that expired (runner stopped heartbeating). */
  lease_expiries: Generated<number>;
}

/** A clip minted (upload-url) for a task; complete accepts only a clip of its own task. */
export interface BenchTaskVideosTable {
  video_id: string;
  task_id: string;
  created_at: number;
}

export type BenchLogSource = 'server' | 'runner' | 'evaluator';
export type BenchLogLevel = 'info' | 'warn' | 'error';

export interface BenchLogsTable {
  /** Autoincrement: the line's position in the log. */
  seq: Generated<number>;
  run_id: string;
  time: number;
  source: BenchLogSource;
  level: BenchLogLevel;
  message: string;
}

export interface BenchTables {
  models: ModelsTable;
  runners: RunnersTable;
  runner_models: RunnerModelsTable;
  bench_runs: BenchRunsTable;
  bench_tasks: BenchTasksTable;
  bench_logs: BenchLogsTable;
  bench_task_videos: BenchTaskVideosTable;
  model_baselines: ModelBaselinesTable;
}
