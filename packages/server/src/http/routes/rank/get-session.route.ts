/** GET /api/v1/rank: the caller's Rank session, created when absent. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, errorResponses } from '../../schemas/common.js';
import { RankSession } from '../../schemas/sessions.js';
import { viewRankSession } from '../sessions/session-routes.js';

export const getRankSessionRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/rank',
    {
      schema: {
        operationId: 'getRankSession',
        tags: ['Rank'],
        summary: "Get the caller's Rank session (created if absent)",
        description:
          'Returns the current Rank session with every video, its state (awaiting_upload → uploaded → queued → scoring → scored | failed, with an error code when failed) and its per-dimension scores (value, method, methodVersion, frames). A Rank session also shows its locked prompt (null until its first candidate is stored: uploaded and confirmed).',
        response: { 200: RankSession, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    (request) => viewRankSession(deps, request, false),
  );
};
