/** The `evaluate-video` job: score one confirmed video (Score, Rank or Bench clip) with the engine. */
import { isUpstreamFailure } from '../errors.js';
import { DEPENDENCY_RETRY_MS, DependencyUnavailableJobError, PermanentJobError } from '../ports/job-queue.js';
import { EVALUATE_VIDEO_JOB } from './catalogue.js';
import type { VideoService } from '../services/video.service.js';
import type { JobDefinition } from './catalogue.js';

// A type alias (not an interface) so that it is a JobPayload (string values only).
export type EvaluateVideoPayload = { videoId: string };

export interface EvaluateVideoHooks {
  /**
   * Called once the video's scoring is settled (scored, or failed for good), so that a Bench run
   * can account for its clip. Not called when the job was cancelled or cut off by shutdown.
   */
  settled?: (videoId: string) => Promise<void>;
  /**
   * True while a dependency every job shares (the blob store, the database) is unavailable — what
   * /readyz checks. A job whose clip could not be read meanwhile waits for it instead of using up
   * its attempts; a read failure while they are available (one bad object) counts as usual.
   */
  dependencyUnavailable?: () => Promise<boolean>;
}

export function evaluateVideoJob(
  videos: VideoService,
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
          await videos.evaluate(payload.videoId, context.signal, context.log);
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
        await hooks.settled?.(payload.videoId);
      },
      onFailed: async (payload, error) => {
        const detail = error instanceof Error ? error.message : String(error);
        await videos.markFailed(payload.videoId, 'internal_error', `scoring failed after retries: ${detail}`);
        await hooks.settled?.(payload.videoId);
      },
    },
  };
}
