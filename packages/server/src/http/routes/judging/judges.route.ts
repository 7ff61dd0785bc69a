/** A judging campaign's judges (issue #23): list, add, remove — the owner's. */
import type { JudgingService } from '../../../services/judging.service.js';
import type { AppDeps, TypedApp } from '../../app-deps.js';
import { publicBaseOf } from '../../public-base.js';
import {
  OWNED_RESOURCE_ERRORS,
  OWNED_READ_ERRORS,
  errorResponses,
  noContentResponses,
} from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';
import {
  AddedJudge,
  AddJudgeBody,
  CampaignIdParams,
  campaignRoute,
  JudgeIdParams,
  JudgeList,
} from './schemas.js';

export function judgeRoutes(app: TypedApp, judging: JudgingService, deps: AppDeps): void {
  app.get(
    '/api/v1/judging/campaigns/:id/judges',
    campaignRoute({
      operationId: 'listJudgingJudges',
      summary: "A campaign's judges (owner)",
      description:
        'Every judge ever added, removed ones included, with their pseudonym, account, status and vote count. Judges themselves get 403: they never see who else judges.',
      params: CampaignIdParams,
      response: {
        200: JudgeList,
        ...errorResponses(...OWNED_READ_ERRORS),
      },
    }),
    async (request) => ({ items: await judging.listJudges(userOf(request).id, request.params.id) }),
  );

  app.post(
    '/api/v1/judging/campaigns/:id/judges',
    campaignRoute(
      {
        operationId: 'addJudgingJudge',
        summary: 'Add a judge (owner)',
        description:
          "Adds a user of this server as a judge, by `email` or `userName` (exactly one; both or neither is 400 `validation_failed`). An unknown `userName` is 404. An email with no account becomes an `invited` judge, `active` once the account is made: when the caller is an admin an invite is made for it through the dashboard's invite flow (`invite.url`, shown once). Only an admin can invite new users, so a non-admin owner may add such an email only while an admin's invite to it is pending (`invite` is null; the judge is bound when it is accepted); otherwise it is 409 `judge_not_invited`, and nothing is added: ask an admin to invite that email, then add it again. " +
          'Adding a judge again answers the same judge; adding a removed judge restores them, and their votes count again. The owner may add themselves (their votes are not blind). A closed campaign is 409 `judging_closed`. Honours `Idempotency-Key`.',
        params: CampaignIdParams,
        body: AddJudgeBody,
        response: {
          201: AddedJudge,
          ...errorResponses(
            ...OWNED_RESOURCE_ERRORS,
            'judging_closed',
            'judge_not_invited',
            'idempotency_mismatch',
            'conflict',
          ),
        },
      },
      { idempotent: true },
    ),
    async (request, reply) => {
      const added = await judging.addJudge(userOf(request).id, request.params.id, request.body);
      const invite =
        added.invite === null
          ? null
          : {
              url: `${publicBaseOf(request, deps.config)}/dashboard/invite#token=${added.invite.token}`,
              expiresAt: added.invite.expiresAt,
            };
      if (invite) reply.header('Cache-Control', 'no-store');
      return reply.code(201).send({ judge: added.judge, invite });
    },
  );

  app.delete(
    '/api/v1/judging/campaigns/:id/judges/:judgeId',
    campaignRoute(
      {
        operationId: 'removeJudgingJudge',
        summary: 'Remove a judge (owner)',
        description:
          'The judge loses access at once (403 on every route of the campaign) and their open offers are withdrawn. Their votes are kept (votes are append-only; the export lists them with `judge_removed`) but no longer count in the ratings or the agreement; adding the judge again makes them count again. An unknown judge id is 404.',
        params: JudgeIdParams,
        response: noContentResponses('Removed.', ...OWNED_RESOURCE_ERRORS),
      },
      { noBody: true },
    ),
    async (request, reply) => {
      await judging.removeJudge(userOf(request).id, request.params.id, request.params.judgeId);
      return reply.code(204).send(null);
    },
  );
}
