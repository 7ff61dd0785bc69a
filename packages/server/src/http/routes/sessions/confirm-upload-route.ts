/**
 * POST /api/v1/{score|rank}/{id}/videos/confirm-upload: verify the uploaded clip and queue its
 * scoring. Score and Rank confirm the same way; only the path, resource, operationId and tag differ.
 */
import type { RouteModule } from '../../app-deps.js';
import { SessionIdParams, errorResponses } from '../../schemas/common.js';
import { ConfirmUploadBody, Video } from '../../schemas/sessions.js';
import { confirmUpload, SESSION_CLIP_ERRORS, sessionRoute } from './session-routes.js';

const WORKFLOWS = {
  score: { operationId: 'confirmScoreUpload', extra: '', errors: [] },
  rank: {
    operationId: 'confirmRankUpload',
    extra:
      ' The first candidate confirmed locks the Rank session to its prompt. A candidate uploaded for another prompt while a different one locked the session first: 400 RANK_PROMPT_MISMATCH, and the candidate is removed with its bytes.',
    errors: ['RANK_PROMPT_MISMATCH'],
  },
} as const;

export function confirmUploadRoute(kind: keyof typeof WORKFLOWS): RouteModule {
  const { operationId, extra, errors } = WORKFLOWS[kind];
  return (app, { deps }) => {
    app.post(
      `/api/v1/${kind}/:id/videos/confirm-upload`,
      sessionRoute(
        kind,
        {
          operationId,
          summary: 'Confirm an upload; scoring follows',
          description:
            "Step 3 of the upload flow. Verifies the stored object (present, non-empty, within the size limit, container magic bytes matching the declared contentType, probed by the engine's decoder), moves the video to `queued` and enqueues scoring. Idempotent: confirming again returns the video in its current state. Before the PUT: 409 conflict. A file that is not a usable video: 400 invalid_video, and the video becomes `failed` with the engine's error code (empty_file, not_a_video, truncated, unsupported_codec, …)." +
            extra,
          params: SessionIdParams,
          body: ConfirmUploadBody,
          response: {
            200: Video,
            ...errorResponses(
              ...SESSION_CLIP_ERRORS,
              'invalid_video',
              'idempotency_mismatch',
              'unsupported_media_type',
              ...errors,
            ),
          },
        },
        { idempotent: true },
      ),
      (request) => confirmUpload(deps, kind, request, request.params.id, request.body.videoId),
    );
  };
}
