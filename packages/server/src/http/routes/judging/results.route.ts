/** A judging campaign's ratings and agreement with the automated dimensions (issue #23). */
import type { JudgingService } from '../../../services/judging.service.js';
import type { TypedApp } from '../../app-deps.js';
import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';
import { CampaignIdParams, campaignRoute, JudgingAgreement, JudgingRatings } from './schemas.js';

/** A campaign's results, each computed from its votes on every call: `GET …/{id}/ratings`, `…/agreement`. */
const RESULTS = [
  {
    result: 'ratings',
    operationId: 'getJudgingRatings',
    summary: "A campaign's ratings with intervals",
    description:
      "Bradley–Terry with ties (Davidson) per item (run or candidate) from every counted vote, recomputed on each call: rating, 95 % interval from a bootstrap over prompts (seeded by the campaign, so the same votes give the same figures), votes, wins, losses and ties; the pair-by-pair win matrix; and per judge (pseudonym) their agreement with the others, judges below chance flagged. Removed judges' votes are left out (`votesExcluded`); `skip` and `both_bad` do not enter the ratings. The owner always; a judge once the campaign is closed or revealed (without `judges`), else 403. See docs/statistics.md.",
    schema: JudgingRatings,
  },
  {
    result: 'agreement',
    operationId: 'getJudgingAgreement',
    summary: 'How well each automated dimension agrees with the judges (owner)',
    description:
      "For every dimension scored on the campaign's clips: the share of decided votes where the dimension prefers the clip people preferred, with a 95 % interval over prompts, and Kendall τ-b between the dimension's per-item means and the human ratings. `fitted`: a logistic team score of per-dimension differences, cross-validated over prompts, with its held-out accuracy beside the best single dimension's — labelled as fitted to this campaign, never replacing VBench's Total. Clips deleted since have no scores and leave their votes out of the dimension rows. The owner only. See docs/statistics.md.",
    schema: JudgingAgreement,
  },
] as const;

export function resultRoutes(app: TypedApp, judging: JudgingService): void {
  for (const { result, operationId, summary, description, schema } of RESULTS)
    app.get(
      `/api/v1/judging/campaigns/:id/${result}`,
      campaignRoute({
        operationId,
        summary,
        description,
        params: CampaignIdParams,
        response: { 200: schema, ...errorResponses(...OWNED_READ_ERRORS) },
      }),
      async (request) => judging[result](userOf(request).id, request.params.id),
    );
}
