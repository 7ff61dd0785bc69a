/** POST /api/v1/rank/{id}/videos/confirm-upload: verify the uploaded clip and queue its scoring. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, RunIdParams, errorResponses } from '../../schemas/common.js';
import { ConfirmUploadBody, Video } from '../../schemas/sessions.js';
import { confirmUpload } from '../sessions/session-routes.js';

export const confirmRankUploadRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/rank/:id/videos/confirm-upload',
    {
      config: { idempotent: true, resource: 'rank-session' },
      schema: {
        operationId: 'confirmRankUpload',
        tags: ['Rank'],
        summary: 'Confirm an upload; scoring follows',
        description:
          "Step 3 of the upload flow. Verifies the stored object (present, non-empty, within the size limit, container magic bytes matching the declared contentType, probed by the engine's decoder), moves the video to `queued` and enqueues scoring. Idempotent: confirming again returns the video in its current state. Before the PUT: 409 conflict. A file that is not a usable video: 400 invalid_video, and the video becomes `failed` with the engine's error code (empty_file, not_a_video, truncated, unsupported_codec, …).",
        params: RunIdParams,
        body: ConfirmUploadBody,
        response: {
          200: Video,
          ...errorResponses(
            ...AUTH_ERRORS,
            'validation_failed',
            'invalid_field',
            'invalid_video',
            'forbidden',
            'not_found',
            'conflict',
            'idempotency_mismatch',
            'unsupported_media_type',
          ),
        },
      },
    },
    (request) => confirmUpload(deps, 'rank', request, request.params.id, request.body.videoId),
  );
};
