/**
 * POST /api/v1/{score|rank}/{id}/videos/upload-url: create a video and mint its upload URL. Score
 * and Rank mint the same way; the path, resource, operationId, tag, body and Rank's prompt lock
 * differ.
 */
import type { RouteModule } from '../../app-deps.js';
import { SessionIdParams, errorResponses } from '../../schemas/common.js';
import { RankUploadUrlBody, ScoreUploadUrlBody, UploadUrlResponse } from '../../schemas/sessions.js';
import { createUploadUrl, SESSION_CLIP_ERRORS, sessionRoute } from './session-routes.js';

const WORKFLOWS = {
  score: {
    operationId: 'createScoreUploadUrl',
    body: ScoreUploadUrlBody,
    description:
      'Step 1 of the upload flow. Validates fileName (1-255 characters, no path separators, no "..", no control characters), contentType (a video media type from the allow-list) and prompt (1-2000 characters), and an optional `auxiliary` object for the semantic dimensions. Returns `videoId`, `uploadUrl` (signed, single use, valid until `expiresAt`), `method: PUT`, the `headers` to send and `maxBytes`. Step 2: PUT the raw bytes to uploadUrl with exactly those headers (no X-API-Key needed: the URL token is the credential). Step 3: confirm-upload with videoId.',
    errors: [],
  },
  rank: {
    operationId: 'createRankUploadUrl',
    body: RankUploadUrlBody,
    description:
      'Step 1 of the upload flow. Validates fileName (1-255 characters, no path separators, no "..", no control characters), contentType (a video media type from the allow-list) and prompt (1-2000 characters); a Rank session is locked to a prompt by its first candidate that is stored (uploaded and confirmed), not by an upload-url: until then prompt is required and any prompt is accepted; afterwards prompt is optional and a different one is 400 RANK_PROMPT_MISMATCH (prompts are compared after trimming surrounding white space); a candidate uploaded for another prompt while a different one locked the session first is refused at confirm-upload with 400 RANK_PROMPT_MISMATCH and removed; and an optional `auxiliary` object for the semantic dimensions. Returns `videoId`, `uploadUrl` (signed, single use, valid until `expiresAt`), `method: PUT`, the `headers` to send and `maxBytes`. Step 2: PUT the raw bytes to uploadUrl with exactly those headers (no X-API-Key needed: the URL token is the credential). Step 3: confirm-upload with videoId.',
    errors: ['RANK_PROMPT_MISMATCH'],
  },
} as const;

export function uploadUrlRoute(kind: keyof typeof WORKFLOWS): RouteModule {
  const { operationId, body, description, errors } = WORKFLOWS[kind];
  return (app, { deps }) => {
    app.post(
      `/api/v1/${kind}/:id/videos/upload-url`,
      sessionRoute(
        kind,
        {
          operationId,
          summary: 'Create a video and get its upload URL',
          description,
          params: SessionIdParams,
          body,
          response: {
            201: UploadUrlResponse,
            ...errorResponses(
              ...SESSION_CLIP_ERRORS,
              'idempotency_mismatch',
              'payload_too_large',
              'unsupported_media_type',
              ...errors,
            ),
          },
        },
        { idempotent: true },
      ),
      (request, reply) => createUploadUrl(deps, kind, request, request.params.id, request.body, reply),
    );
  };
}
