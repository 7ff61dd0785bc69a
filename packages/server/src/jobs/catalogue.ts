/**
 * The typed job catalogue: every job type the worker runs. `buildJobHandlers` checks at start that
 * each type has exactly one handler and that no handler is for an unknown type.
 */
import type { EnqueueOptions, JobHandler, JobLane, QueueExecutor } from '../ports/job-queue.js';
import type { EvaluateVideoPayload } from './evaluate-video.js';

/** Scores one uploaded clip (`jobs/evaluate-video.ts`). */
export const EVALUATE_VIDEO_JOB = 'evaluate-video';
export const JOB_TYPES = [EVALUATE_VIDEO_JOB] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** Each job type's payload: what its enqueuer passes (typed with this) and its handler's `parse` gives back. */
export interface JobPayloads {
  [EVALUATE_VIDEO_JOB]: EvaluateVideoPayload;
}

/**
 * The `evaluate-video` job of a confirmed clip, as `JobQueue.enqueue` takes it, joining the
 * caller's transaction (`executor`): one job per clip (its subject), fair between users.
 */
export function evaluationJob(
  video: { id: string; user_id: string },
  lane: JobLane,
  executor: QueueExecutor,
): [typeof EVALUATE_VIDEO_JOB, JobPayloads[typeof EVALUATE_VIDEO_JOB], EnqueueOptions] {
  return [
    EVALUATE_VIDEO_JOB,
    { videoId: video.id },
    { subject: `video:${video.id}`, executor, fairnessKey: video.user_id, lane },
  ];
}

export interface JobDefinition<P = unknown> {
  type: JobType;
  handler: JobHandler<P>;
}

export function buildJobHandlers(
  definitions: ReadonlyArray<JobDefinition<unknown>>,
  types: readonly string[] = JOB_TYPES,
): Map<string, JobHandler<unknown>> {
  const problems: string[] = [];
  const map = new Map<string, JobHandler<unknown>>();
  for (const d of definitions) {
    if (!types.includes(d.type)) problems.push(`handler for unknown job type ${d.type}`);
    else if (map.has(d.type)) problems.push(`two handlers for job type ${d.type}`);
    else map.set(d.type, d.handler);
  }
  for (const t of types) if (!map.has(t)) problems.push(`no handler for job type ${t}`);
  if (problems.length > 0) throw new Error(`job catalogue is inconsistent: ${problems.join('; ')}`);
  return map;
}
