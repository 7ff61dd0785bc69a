/**
 * DELETE /api/v1/{score|rank}/{id}/videos/{videoId}: remove one clip of the caller's session (an
 * addition to the interface; issue #24 item 7). Score and Rank remove the same way; only the path,
 * resource, operationId and tag differ.
 */
import type { RouteModule } from '../../app-deps.js';
import { SessionVideoParams, noContentResponses } from '../../schemas/common.js';
import { SESSION_CLIP_ERRORS, sessionRoute, userOf } from './session-routes.js';

const WORKFLOWS = {
  score: {
    operationId: 'removeScoreVideo',
    summary: 'Remove one clip from the Score session',
    extra: '',
  },
  rank: {
    operationId: 'removeRankVideo',
    summary: 'Remove one candidate from the Rank session',
    extra:
      ' The leaderboard (GET /api/v1/rank/{id}/ranked) no longer lists it and the other candidates are ranked again without it. When no stored candidate is left, the prompt lock is lifted (`promptLocked` false): the next confirmed candidate locks the session to its prompt.',
  },
} as const;

export function removeVideoRoute(kind: keyof typeof WORKFLOWS): RouteModule {
  const { operationId, summary, extra } = WORKFLOWS[kind];
  return (app, { deps }) => {
    app.delete(
      `/api/v1/${kind}/:id/videos/:videoId`,
      sessionRoute(
        kind,
        {
          operationId,
          summary,
          description:
            "Owner-only. Removes the clip with its scores, per-dimension failures and stored bytes; the session keeps its run id and its other clips. A clip in any state may be removed: one being scored has its scoring job cancelled (a result still arriving is dropped), one being uploaded has its PUT answered 404 and its bytes thrown away. Another user's session: 403 forbidden. An unknown run id, or a videoId that is not a clip of this session (removed already, another session's or another user's): 404 not_found. A session that was reset: 409 conflict. The blob store unable to delete the bytes: 503 upstream_unavailable and nothing is removed (retry). Not an Idempotency-Key operation: repeating it answers 404." +
            extra,
          params: SessionVideoParams,
          response: noContentResponses('Removed.', ...SESSION_CLIP_ERRORS),
        },
        { noBody: true },
      ),
      async (request, reply) => {
        await deps.services.sessions.removeVideo(
          userOf(request).id,
          kind,
          request.params.id,
          request.params.videoId,
        );
        return reply.code(204).send(null);
      },
    );
  };
}
