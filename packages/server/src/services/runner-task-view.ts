/** A runner task as the runner protocol shows it (claim, heartbeat, complete, fail), and its runner's log lines as stored. */
import type { RunnerLogLine, RunnerTaskView } from '../domain/views/runners.js';
import type { BenchRunRecord, BenchTaskRecord, NewBenchLog } from '../repositories/index.js';
import { publicModelId } from './model-keys.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export function taskView(task: BenchTaskRecord, run: BenchRunRecord, leaseMs: number): RunnerTaskView {
  const leaseLive = task.state === 'claimed' && task.lease_id !== null && task.lease_expires_at !== null;
  return {
    id: task.id,
    runId: task.run_id,
    modelId: publicModelId(run.model_id),
    prompt: task.prompt,
    auxiliary: task.auxiliary === null ? {} : (JSON.parse(task.auxiliary) as Record<string, string>),
    dimensions: JSON.parse(task.dimensions) as string[],
    sampleIndex: task.sample_index,
    seed: task.seed,
    attempt: task.attempts,
    maxAttempts: task.max_attempts,
    state: task.state,
    lease:
      leaseLive && task.lease_id !== null && task.lease_expires_at !== null
        ? { id: task.lease_id, expiresAt: iso(task.lease_expires_at), ttlSeconds: leaseMs / 1000 }
        : null,
    error: task.error_code === null ? null : { code: task.error_code, detail: task.error_detail ?? '' },
  };
}

const MAX_LOG_LINES = 100;
const MAX_LOG_MESSAGE = 4000;

/** A runner's log lines as the run's log keeps them: at most 100, each cut at 4000 characters. */
export function runnerLogRows(
  runId: string,
  task: BenchTaskRecord,
  logs: readonly RunnerLogLine[],
  now: number,
): NewBenchLog[] {
  const runner = task.runner_id ?? 'runner';
  return logs.slice(0, MAX_LOG_LINES).map((l) => {
    const at = l.at === undefined ? NaN : Date.parse(l.at);
    return {
      run_id: runId,
      // A runner's own timestamp is kept when it is sane (not in the future).
      time: Number.isFinite(at) && at <= now ? at : now,
      source: 'runner' as const,
      level: l.level ?? 'info',
      message: `[${runner} clip #${task.seq}] ${l.message.slice(0, MAX_LOG_MESSAGE)}`,
    };
  });
}
