/**
 * The `evaluate-video` job: score one confirmed video (Score, Rank or Bench clip) with the engine
 * (`ClipEvaluationService`, which also settles a Bench clip's task and moves its run on).
 */
import { isUpstreamFailure } from '../errors.js';
import { DEPENDENCY_RETRY_MS, DependencyUnavailableJobError, PermanentJobError } from '../ports/job-queue.js';
import { EVALUATE_VIDEO_JOB } from './catalogue.js';
import type { ClipEvaluationService } from '../services/clip-evaluation.service.js';
import type { JobDefinition } from './catalogue.js';

// A type alias (not an interface) so that it is a JobPayload (string values only).
export type EvaluateVideoPayload = { videoId: string };

export interface EvaluateVideoHooks {
  /**
   * True while a dependency every job shares (the blob store, the database) is unavailable — what
   * /readyz checks. A job whose clip could not be read meanwhile waits for it instead of using up
   * its attempts; a read failure while they are available (one bad object) counts as usual.
   */
  dependencyUnavailable?: () => Promise<boolean>;
}

export function evaluateVideoJob(
  evaluations: ClipEvaluationService,
  hooks: EvaluateVideoHooks = {},
): JobDefinition<EvaluateVideoPayload> {
  return {
    type: EVALUATE_VIDEO_JOB,
    handler: {
      maxAttempts: 3,
      parse(payload) {
        const p = payload as Partial<EvaluateVideoPayload> | null;
        if (typeof p !== 'object' || p === null || typeof p.videoId !== 'string')
          throw new PermanentJobError('evaluate-video payload must be { videoId }');
        return { videoId: p.videoId };
      },
      run: async (payload, context) => {
        try {
          await evaluations.evaluate(payload.videoId, context.signal, context.log);
        } catch (e) {
          // The clip could not be read because the blob store (or the database) is down: the job
          // waits for it to come back instead of using up its attempts.
          if (!context.signal.aborted && isUpstreamFailure(e) && (await hooks.dependencyUnavailable?.()))
            throw new DependencyUnavailableJobError(
              `a dependency is unavailable: ${e instanceof Error ? e.message : String(e)}`,
              DEPENDENCY_RETRY_MS,
              { cause: e },
            );
          throw e;
        }
      },
      onFailed: async (payload, error) => {
        const detail = error instanceof Error ? error.message : String(error);
        await evaluations.giveUp(
          payload.videoId,
          'internal_error',
          `scoring failed after retries: ${detail}`,
        );
      },
    },
  };
}
