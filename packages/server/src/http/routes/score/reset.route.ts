/** POST /api/v1/score/reset: retire the current Score session and start an empty one. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, errorResponses } from '../../schemas/common.js';
import { ScoreSession } from '../../schemas/sessions.js';
import { viewScoreSession } from '../sessions/session-routes.js';

export const resetScoreSessionRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/score/reset',
    {
      config: { idempotent: true, noBody: true },
      schema: {
        operationId: 'resetScoreSession',
        tags: ['Score'],
        summary: 'Reset the Score session',
        description:
          'Takes no body. Returns a new, empty Score session with a NEW run id. The old run id is retired: requests naming it answer 409 conflict; its pending scoring jobs are cancelled and its videos, scores and uploaded bytes are deleted. Honours Idempotency-Key (a replay returns the same new session).',
        response: { 200: ScoreSession, ...errorResponses(...AUTH_ERRORS, 'invalid_field', 'conflict') },
      },
    },
    (request) => viewScoreSession(deps, request, true),
  );
};
