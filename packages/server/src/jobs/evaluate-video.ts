/** The `evaluate-video` job: score one confirmed Score/Rank video with the engine. */
import { PermanentJobError } from '../ports/job-queue.js';
import { EVALUATE_VIDEO_JOB } from '../services/upload-service.js';
import type { VideoService } from '../services/video-service.js';
import type { JobDefinition } from './catalogue.js';

export interface EvaluateVideoPayload {
  videoId: string;
}

export function evaluateVideoJob(videos: VideoService): JobDefinition<EvaluateVideoPayload> {
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
      run: (payload, context) => videos.evaluate(payload.videoId, context.signal, context.log),
      onFailed: async (payload, error) => {
        const detail = error instanceof Error ? error.message : String(error);
        await videos.markFailed(payload.videoId, 'internal_error', `scoring failed after retries: ${detail}`);
      },
    },
  };
}
