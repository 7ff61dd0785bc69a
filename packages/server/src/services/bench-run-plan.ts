/**
 * A new Bench run as the rows it starts with: the run, `queued`, and its generation tasks =
 * (prompts of the clip groups covering the dimensions, limited by `prompts_per_dimension`) ×
 * `samples_per_prompt`, each with a random seed that is recorded (VBench's sampling rule: random,
 * not cherry-picked). Writes nothing; `BenchRunService.create` stores the rows in one transaction.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { PROMPT_SUITE_VERSION, planPrompts } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';
import type { CreateBenchRunInput } from '../domain/views/bench.js';
import type { BenchRunRecord, BenchTaskRecord } from '../repositories/index.js';
import { NO_TASKS } from './bench-views.js';

/** VBench samples 5 clips per prompt. */
export const DEFAULT_SAMPLES_PER_PROMPT = 5;

export interface BenchRunPlanInput {
  userId: string;
  input: CreateBenchRunInput;
  /** The model's key (`model-keys.ts`), already resolved for this user. */
  modelKey: string;
  runnerId: string | null;
  /** Checked and in VBench's order. */
  dimensions: DimensionId[];
  now: number;
  /** Attempts of a generation task before it fails for good. */
  maxAttempts: number;
}

export interface BenchRunPlan {
  row: BenchRunRecord;
  tasks: BenchTaskRecord[];
  /** Distinct prompts of the suite the tasks are made from. */
  prompts: number;
}

export function planBenchRun({
  userId,
  input,
  modelKey,
  runnerId,
  dimensions,
  now,
  maxAttempts,
}: BenchRunPlanInput): BenchRunPlan {
  const samples = input.samples_per_prompt ?? DEFAULT_SAMPLES_PER_PROMPT;
  const promptsPerDimension = input.prompts_per_dimension ?? null;
  const plan = planPrompts(dimensions, promptsPerDimension ?? undefined);
  const row: BenchRunRecord = {
    id: `bench_${randomUUID()}`,
    user_id: userId,
    name: input.name,
    model_id: modelKey,
    runner_id: runnerId,
    dimensions: JSON.stringify(dimensions),
    status: 'queued',
    error_code: null,
    error_detail: null,
    created_at: now,
    updated_at: now,
    started_at: null,
    finished_at: null,
    samples_per_prompt: samples,
    prompts_per_dimension: promptsPerDimension,
    suite_version: PROMPT_SUITE_VERSION,
    scorecard: null,
    // The triggers on bench_tasks count the tasks when they are inserted.
    ...NO_TASKS,
  };
  const tasks: BenchTaskRecord[] = [];
  for (const planned of plan) {
    for (let sample = 0; sample < samples; sample++) {
      tasks.push({
        id: `task_${randomUUID().replaceAll('-', '')}`,
        run_id: row.id,
        seq: tasks.length,
        prompt: planned.prompt.text,
        auxiliary:
          Object.keys(planned.prompt.auxiliary).length === 0
            ? null
            : JSON.stringify(planned.prompt.auxiliary),
        dimensions: JSON.stringify(planned.dimensions),
        sample_index: sample,
        // Fits a signed 32-bit int.
        seed: randomInt(0, 2 ** 31 - 1),
        state: 'pending',
        runner_id: null,
        attempts: 0,
        lease_expires_at: null,
        video_id: null,
        error_code: null,
        error_detail: null,
        created_at: now,
        updated_at: now,
        lease_id: null,
        max_attempts: maxAttempts,
        prompt_id: planned.prompt.id,
        clip_group: planned.group,
        lease_expiries: 0,
      });
    }
  }
  return { row, tasks, prompts: plan.length };
}
