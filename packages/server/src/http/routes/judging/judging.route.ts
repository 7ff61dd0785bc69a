/** Judging itself (issue #23): the pairs offered to a judge, votes, and the clips' bytes. */
import { Type } from 'typebox';
import { AppError } from '../../../errors.js';
import type { JudgingService } from '../../../services/judging.service.js';
import type { AppDeps, TypedApp } from '../../app-deps.js';
import { clipBytesResponse, sendClipBytes } from '../../clip-bytes.js';
import { OWNED_RESOURCE_ERRORS, OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';
import {
  CampaignIdParams,
  campaignRoute,
  CastJudgingVoteBody,
  ClipIdParams,
  JudgingVote,
  NextJudgingPairs,
  NextPairsQuery,
} from './schemas.js';

export function judgingRoutes(app: TypedApp, judging: JudgingService, deps: AppDeps): void {
  app.get(
    '/api/v1/judging/campaigns/:id/next-pairs',
    campaignRoute({
      operationId: 'getNextJudgingPairs',
      summary: 'The pairs for the caller to judge next (judge)',
      description:
        "The caller's open offers, oldest first, topped up to `count` (1–3: answer the first, preload the others). A new offer is a pair still short of its target votes, never offered to this judge before, whose clips both still exist — fewest votes first, ties spread between judges (so judges asking at once start on different pairs). Each offer shows the two clips of one prompt under the campaign's own clip ids, left and right in an order drawn at random for this pair and judge, with the prompt and the question; nothing names a model, run, file or score. " +
        'Asking again without voting answers the same offers. `done` is true when nothing is left for the caller. Only a judge of the campaign may ask (the owner too, once they added themselves): others 403; a closed campaign 409 `judging_closed`. An offer whose clip was deleted is withdrawn.',
      params: CampaignIdParams,
      querystring: NextPairsQuery,
      response: {
        200: NextJudgingPairs,
        ...errorResponses(...OWNED_READ_ERRORS, 'judging_closed'),
      },
    }),
    async (request) => judging.nextPairs(userOf(request).id, request.params.id, request.query.count ?? 1),
  );

  app.post(
    '/api/v1/judging/campaigns/:id/votes',
    campaignRoute(
      {
        operationId: 'castJudgingVote',
        summary: 'Vote on an offered pair (judge)',
        description:
          "Answers one of the caller's offers: `left`, `right`, `tie`, `both_bad` or `skip`. The server maps left/right to the clips through the offer (the sides were randomised), so the vote is stored relative to the pair's clips. Votes are append-only: a second vote of the same judge on the same pair is 409 `already_voted` (the first stands, also when two arrive at once); an offer that was not made to the caller in this campaign is 409 `pair_not_offered`; a closed campaign 409 `judging_closed`; an offer withdrawn because a clip was deleted 409 `conflict`; a removed judge 403. Honours `Idempotency-Key`.",
        params: CampaignIdParams,
        body: CastJudgingVoteBody,
        response: {
          201: JudgingVote,
          ...errorResponses(
            ...OWNED_RESOURCE_ERRORS,
            'pair_not_offered',
            'already_voted',
            'judging_closed',
            'conflict',
            'idempotency_mismatch',
          ),
        },
      },
      { idempotent: true },
    ),
    async (request, reply) =>
      reply.code(201).send(await judging.vote(userOf(request).id, request.params.id, request.body)),
  );

  app.get(
    '/api/v1/judging/campaigns/:id/clips/:clipId/content',
    campaignRoute({
      operationId: 'getJudgingClipContent',
      summary: "A campaign clip's bytes (judge, owner)",
      description:
        "The bytes of a clip of the campaign, named by the campaign's clip id (never its video id or file name: no `Content-Disposition`), whole or one byte range as `GET /api/v1/videos/{videoId}/content` serves them. A judge reads only clips offered to them; the owner any clip of the campaign. A clip not offered to the caller, one deleted since, and an unknown clip id all answer the same 404.",
      params: ClipIdParams,
      headers: Type.Object({
        range: Type.Optional(Type.String({ description: 'One byte range, e.g. `bytes=0-1048575`.' })),
      }),
      response: {
        200: clipBytesResponse('The whole clip.'),
        206: clipBytesResponse('The asked-for range (`Content-Range: bytes START-END/SIZE`).'),
        ...errorResponses(...OWNED_READ_ERRORS, 'range_not_satisfiable'),
      },
    }),
    async (request, reply) => {
      const { id, clipId } = request.params;
      const { ownerId, videoId } = await judging.clipVideo(userOf(request).id, id, clipId);
      // The owner's stored clip; its own errors would name the video, so they are answered as the clip.
      const clip = await deps.services.videos.storedClip(ownerId, videoId).catch((e: unknown) => {
        if (e instanceof AppError && (e.code === 'not_found' || e.code === 'conflict'))
          throw new AppError('not_found', `clip '${clipId}' of judging campaign '${id}' not found`);
        throw e;
      });
      return sendClipBytes(
        reply,
        deps.blobs,
        clip,
        request.headers.range,
        (size) => `the range starts past the end of the clip (${size} bytes)`,
      );
    },
  );
}
