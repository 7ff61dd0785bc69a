/** A judging campaign's votes as CSV or JSON Lines (issue #23), for training reward models. */
import { Type } from 'typebox';
import { EXPORT_COLUMNS, votesCsv, votesJsonl } from '../../../services/judging.service.js';
import type { JudgingService } from '../../../services/judging.service.js';
import type { TypedApp } from '../../app-deps.js';
import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';
import { CampaignIdParams, campaignRoute, ExportQuery } from './schemas.js';

export function exportRoutes(app: TypedApp, judging: JudgingService): void {
  app.get(
    '/api/v1/judging/campaigns/:id/export',
    campaignRoute({
      operationId: 'exportJudgingVotes',
      summary: "A campaign's votes as CSV or JSON Lines (owner)",
      description:
        `Every vote, oldest first: \`format=csv\` (default; RFC 4180, CRLF, header row) or \`format=jsonl\` (one JSON object per line), with the fields \`${EXPORT_COLUMNS.join('`, `')}\`. ` +
        "`judge` is the pseudonym (never an account); `winner_clip_id` is the clip preferred (empty for tie, both_bad and skip); the `*_clip_id` are the campaign's clip ids and the `*_video_id` the clips' videos (readable by the owner at `GET /api/v1/videos/{id}/content`; empty once deleted); `*_item` the run id (Bench) or candidate video id (Rank), `*_label` its name. Votes of removed judges are included with `judge_removed` true.",
      params: CampaignIdParams,
      querystring: ExportQuery,
      response: {
        200: {
          description: 'The votes.',
          content: {
            'text/csv': { schema: Type.String() },
            'application/x-ndjson': { schema: Type.String() },
          },
        },
        ...errorResponses(...OWNED_READ_ERRORS),
      },
    }),
    async (request, reply) => {
      const votes = await judging.exportVotes(userOf(request).id, request.params.id);
      const jsonl = request.query.format === 'jsonl';
      return reply
        .type(jsonl ? 'application/x-ndjson; charset=utf-8' : 'text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="judging-${request.params.id}.${jsonl ? 'jsonl' : 'csv'}"`,
        )
        .send(jsonl ? votesJsonl(votes) : votesCsv(votes));
    },
  );
}
