/** GET /api/v1/score: the caller's Score session, created when absent. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, errorResponses } from '../../schemas/common.js';
import { ScoreSession } from '../../schemas/sessions.js';
import { viewScoreSession } from '../sessions/session-routes.js';

export const getScoreSessionRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/score',
    {
      schema: {
        operationId: 'getScoreSession',
        tags: ['Score'],
        summary: "Get the caller's Score session (created if absent)",
        description:
          'Returns the current Score session with every video, its state (awaiting_upload → uploaded → queued → scoring → scored | failed, with an error code when failed) and its per-dimension scores (value, method, methodVersion, frames).',
        response: { 200: ScoreSession, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    (request) => viewScoreSession(deps, request, false),
  );
};
