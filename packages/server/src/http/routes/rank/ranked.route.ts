/** GET /api/v1/rank/{id}/ranked: the Rank leaderboard. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, SessionIdParams, errorResponses } from '../../schemas/common.js';
import { Leaderboard } from '../../schemas/sessions.js';
import { buildLeaderboard, LEADERBOARD_FORMULA } from '../../../services/leaderboard.js';
import { userOf } from '../sessions/session-routes.js';

export const getRankLeaderboardRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/rank/:id/ranked',
    {
      config: { resource: 'rank-session' },
      schema: {
        operationId: 'getRankLeaderboard',
        tags: ['Rank'],
        summary: 'The ranked leaderboard of a Rank session',
        description: `Every candidate with rank, videoId, fileName, overall score, per-dimension scores and state, best first. ${LEADERBOARD_FORMULA}`,
        params: SessionIdParams,
        response: {
          200: Leaderboard,
          ...errorResponses(...AUTH_ERRORS, 'forbidden', 'not_found', 'conflict'),
        },
      },
    },
    async (request) => {
      const session = await deps.services.sessions.requireCurrent(
        userOf(request).id,
        'rank',
        request.params.id,
      );
      const videos = await deps.services.videos.viewsOfSession(session.id);
      return buildLeaderboard(session.id, session.prompt, videos, deps.engine.dimensions());
    },
  );
};
