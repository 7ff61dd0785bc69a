/** POST /api/v1/rank/reset: retire the current Rank session and start an empty one. */
import type { RouteModule } from '../../app-deps.js';
import { AUTH_ERRORS, errorResponses } from '../../schemas/common.js';
import { RankSession } from '../../schemas/sessions.js';
import { viewRankSession } from '../sessions/session-routes.js';

export const resetRankSessionRoute: RouteModule = (app, { deps }) => {
  app.post(
    '/api/v1/rank/reset',
    {
      config: { idempotent: true, noBody: true },
      schema: {
        operationId: 'resetRankSession',
        tags: ['Rank'],
        summary: 'Reset the Rank session',
        description:
          'Takes no body. Returns a new, empty Rank session with a NEW run id. The old run id is retired: requests naming it answer 409 conflict; its pending scoring jobs are cancelled and its videos, scores and uploaded bytes are deleted. The new Rank session is unlocked (no prompt). Honours Idempotency-Key (a replay returns the same new session).',
        response: { 200: RankSession, ...errorResponses(...AUTH_ERRORS, 'invalid_field', 'conflict') },
      },
    },
    (request) => viewRankSession(deps, request, true),
  );
};
