/**
 * GET /api/v1/{score|rank} (the caller's session, created when absent) and POST
 * /api/v1/{score|rank}/reset (a fresh one). Score and Rank answer the same way with their own
 * session view; the path, operationId, tag, schema and description differ.
 */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, errorResponses } from '../../schemas/common.js';
import { RankSession, ScoreSession } from '../../schemas/sessions.js';
import { viewSession } from './session-routes.js';

const WORKFLOWS = {
  score: {
    tag: 'Score',
    name: 'Score',
    schema: ScoreSession,
    get: 'Returns the current Score session with every video, its state (awaiting_upload → uploaded → queued → scoring → scored | failed, with an error code when failed) and its per-dimension scores (value, method, methodVersion, frames).',
    reset:
      'Takes no body. Returns a new, empty Score session with a NEW run id. The old run id is retired: requests naming it answer 409 conflict; its pending scoring jobs are cancelled and its videos, scores and uploaded bytes are deleted. Honours Idempotency-Key (a replay returns the same new session).',
  },
  rank: {
    tag: 'Rank',
    name: 'Rank',
    schema: RankSession,
    get: 'Returns the current Rank session with every video, its state (awaiting_upload → uploaded → queued → scoring → scored | failed, with an error code when failed) and its per-dimension scores (value, method, methodVersion, frames). A Rank session also shows its locked prompt (null until its first candidate is stored: uploaded and confirmed).',
    reset:
      'Takes no body. Returns a new, empty Rank session with a NEW run id. The old run id is retired: requests naming it answer 409 conflict; its pending scoring jobs are cancelled and its videos, scores and uploaded bytes are deleted. The new Rank session is unlocked (no prompt). Honours Idempotency-Key (a replay returns the same new session).',
  },
} as const;

export function getSessionRoute(kind: keyof typeof WORKFLOWS): RouteModule {
  const { tag, name, schema, get } = WORKFLOWS[kind];
  return (app, { deps }) => {
    app.get(
      `/api/v1/${kind}`,
      {
        schema: {
          operationId: `get${name}Session`,
          tags: [tag],
          summary: `Get the caller's ${name} session (created if absent)`,
          description: get,
          response: { 200: schema, ...errorResponses(...AUTH_ERRORS) },
        },
      },
      (request) => viewSession(deps, kind, request, false),
    );
  };
}

export function resetSessionRoute(kind: keyof typeof WORKFLOWS): RouteModule {
  const { tag, name, schema, reset } = WORKFLOWS[kind];
  return (app, { deps }) => {
    app.post(
      `/api/v1/${kind}/reset`,
      {
        config: { idempotent: true, noBody: true },
        schema: {
          operationId: `reset${name}Session`,
          tags: [tag],
          summary: `Reset the ${name} session`,
          description: reset,
          response: { 200: schema, ...errorResponses(...AUTH_ERRORS, 'invalid_field', 'conflict') },
        },
      },
      (request) => viewSession(deps, kind, request, true),
    );
  };
}
