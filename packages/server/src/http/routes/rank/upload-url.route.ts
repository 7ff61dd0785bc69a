/** POST /api/v1/rank/{id}/videos/upload-url: create a video and mint its upload URL. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, SessionIdParams, errorResponses } from '../../schemas/common.js';
import { RankUploadUrlBody, UploadUrlResponse } from '../../schemas/sessions.js';
import { createUploadUrl } from '../sessions/session-routes.js';

export const createRankUploadUrlRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/rank/:id/videos/upload-url',
    {
      config: { idempotent: true, resource: 'rank-session' },
      schema: {
        operationId: 'createRankUploadUrl',
        tags: ['Rank'],
        summary: 'Create a video and get its upload URL',
        description:
          'Step 1 of the upload flow. Validates fileName (1-255 characters, no path separators, no "..", no control characters), contentType (a video media type from the allow-list) and prompt (1-2000 characters); a Rank session is locked to a prompt by its first candidate that is stored (uploaded and confirmed), not by an upload-url: until then prompt is required and any prompt is accepted; afterwards prompt is optional and a different one is 400 RANK_PROMPT_MISMATCH (prompts are compared after trimming surrounding white space); a candidate uploaded for another prompt while a different one locked the session first is refused at confirm-upload with 400 RANK_PROMPT_MISMATCH and removed; and an optional `auxiliary` object for the semantic dimensions. Returns `videoId`, `uploadUrl` (signed, single use, valid until `expiresAt`), `method: PUT`, the `headers` to send and `maxBytes`. Step 2: PUT the raw bytes to uploadUrl with exactly those headers (no X-API-Key needed: the URL token is the credential). Step 3: confirm-upload with videoId.',
        params: SessionIdParams,
        body: RankUploadUrlBody,
        response: {
          201: UploadUrlResponse,
          ...errorResponses(
            ...AUTH_ERRORS,
            'validation_failed',
            'invalid_field',
            'RANK_PROMPT_MISMATCH',
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
    (request, reply) => createUploadUrl(deps, 'rank', request, request.params.id, request.body, reply),
  );
};
