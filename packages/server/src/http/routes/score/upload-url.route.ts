/** POST /api/v1/score/{id}/videos/upload-url: create a video and mint its upload URL. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, SessionIdParams, errorResponses } from '../../schemas/common.js';
import { ScoreUploadUrlBody, UploadUrlResponse } from '../../schemas/sessions.js';
import { createUploadUrl } from '../sessions/session-routes.js';

export const createScoreUploadUrlRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/score/:id/videos/upload-url',
    {
      config: { idempotent: true, resource: 'score-session' },
      schema: {
        operationId: 'createScoreUploadUrl',
        tags: ['Score'],
        summary: 'Create a video and get its upload URL',
        description:
          'Step 1 of the upload flow. Validates fileName (1-255 characters, no path separators, no "..", no control characters), contentType (a video media type from the allow-list) and prompt (1-2000 characters), and an optional `auxiliary` object for the semantic dimensions. Returns `videoId`, `uploadUrl` (signed, single use, valid until `expiresAt`), `method: PUT`, the `headers` to send and `maxBytes`. Step 2: PUT the raw bytes to uploadUrl with exactly those headers (no X-API-Key needed: the URL token is the credential). Step 3: confirm-upload with videoId.',
        params: SessionIdParams,
        body: ScoreUploadUrlBody,
        response: {
          201: UploadUrlResponse,
          ...errorResponses(
            ...AUTH_ERRORS,
            'validation_failed',
            'invalid_field',
            'forbidden',
            'not_found',
            'conflict',
            'idempotency_mismatch',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
      },
    },
    (request, reply) => createUploadUrl(deps, 'score', request, request.params.id, request.body, reply),
  );
};
