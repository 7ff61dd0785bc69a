/** Judging campaigns (issue #23): create, list, read, close, reveal, delete. */
import type { JudgingService } from '../../../services/judging.service.js';
import type { TypedApp } from '../../app-deps.js';
import {
  OWNED_RESOURCE_ERRORS,
  OWNED_READ_ERRORS,
  errorResponses,
  noContentResponses,
} from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';
import {
  CampaignIdParams,
  campaignRoute,
  CreateJudgingCampaignBody,
  JUDGING_TAG,
  JudgingCampaign,
  JudgingCampaignList,
} from './schemas.js';

const BLIND =
  'A judge (a user the owner added) sees the campaign blinded: its name, question, status and progress, but no source, items, model, run, file or score name until the campaign is closed or revealed (`namesVisible`). Anyone else gets 403.';

/** The owner's one-step changes of a campaign (`POST …/{id}/close`, `…/reveal`), each answering it. */
const OWNER_ACTIONS = [
  {
    action: 'close',
    operationId: 'closeJudgingCampaign',
    summary: 'Close a judging campaign (owner)',
    description:
      'No more pairs, votes or judges (each then answers 409 `judging_closed`); the names become visible to the judges. Closing a closed campaign answers it unchanged. Votes and ratings stay readable. Honours `Idempotency-Key`.',
  },
  {
    action: 'reveal',
    operationId: 'revealJudgingCampaign',
    summary: 'Reveal the names to the judges (owner)',
    description:
      "Judges may see the campaign's source, items and ratings from now on; judging goes on (votes cast after this are no longer blind). Revealing again answers the campaign unchanged. Honours `Idempotency-Key`.",
  },
] as const;

export function campaignRoutes(app: TypedApp, judging: JudgingService): void {
  app.post(
    '/api/v1/judging/campaigns',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'createJudgingCampaign',
        tags: [JUDGING_TAG],
        summary: 'Create a judging campaign',
        description:
          "Makes a blind pairwise judging campaign from clips of the caller's: the candidates of a Rank session (`rankSessionId`: every two candidates form a pair; at most 200 candidates) or two to ten Bench runs planned from one prompt suite (`benchRunIds`: for each prompt, each two runs' clips of the same sample index form a pair). Pairs are always two clips of one prompt. " +
          "Exactly one source: both or neither is 400 `validation_failed`; fewer than two clips of one prompt (a Rank session with one candidate, runs with no prompt in common) is 400 `validation_failed`; runs of different prompt suites 400 `validation_failed`; a missing session or run 404; another user's 403 (a campaign cannot mix two users' clips). " +
          'The clips are fixed when the campaign is made. Add judges next (`POST …/judges`). Honours `Idempotency-Key`.',
        body: CreateJudgingCampaignBody,
        response: {
          201: JudgingCampaign,
          ...errorResponses(...OWNED_RESOURCE_ERRORS, 'idempotency_mismatch', 'conflict'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await judging.create(userOf(request).id, request.body)),
  );

  app.get(
    '/api/v1/judging/campaigns',
    {
      schema: {
        operationId: 'listJudgingCampaigns',
        tags: [JUDGING_TAG],
        summary: 'List the campaigns the caller owns or judges',
        description: `Newest first, each with the caller's \`role\`. ${BLIND}`,
        response: { 200: JudgingCampaignList, ...errorResponses('unauthorized') },
      },
    },
    async (request) => ({ items: await judging.list(userOf(request).id) }),
  );

  app.get(
    '/api/v1/judging/campaigns/:id',
    campaignRoute({
      operationId: 'getJudgingCampaign',
      summary: 'A judging campaign',
      description: `The campaign with its progress. ${BLIND} A judge the owner removed gets 403.`,
      params: CampaignIdParams,
      response: {
        200: JudgingCampaign,
        ...errorResponses(...OWNED_READ_ERRORS),
      },
    }),
    async (request) => judging.get(userOf(request).id, request.params.id),
  );

  for (const { action, operationId, summary, description } of OWNER_ACTIONS)
    app.post(
      `/api/v1/judging/campaigns/:id/${action}`,
      campaignRoute(
        {
          operationId,
          summary,
          description,
          params: CampaignIdParams,
          response: {
            200: JudgingCampaign,
            ...errorResponses(...OWNED_RESOURCE_ERRORS, 'idempotency_mismatch', 'conflict'),
          },
        },
        { idempotent: true, noBody: true },
      ),
      async (request) => judging[action](userOf(request).id, request.params.id),
    );

  app.delete(
    '/api/v1/judging/campaigns/:id',
    campaignRoute(
      {
        operationId: 'deleteJudgingCampaign',
        summary: 'Delete a judging campaign (owner)',
        description:
          'Deletes the campaign with its pairs, judges and votes (export them first to keep them). The clips themselves are untouched.',
        params: CampaignIdParams,
        response: noContentResponses('Deleted.', ...OWNED_RESOURCE_ERRORS),
      },
      { noBody: true },
    ),
    async (request, reply) => {
      await judging.delete(userOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
