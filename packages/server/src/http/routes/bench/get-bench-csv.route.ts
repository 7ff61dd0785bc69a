import { Type } from 'typebox';
import { SCORECARD_CSV_HEADER } from '../../../services/bench-scorecard.js';
import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams } from './schemas.js';

export function getBenchCsvRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench/:id/csv',
    {
      config: { resource: BENCH_RESOURCE },
      schema: {
        operationId: 'getBenchCsv',
        tags: [BENCH_TAG],
        summary: "A Bench run's scorecard as CSV",
        description:
          `RFC 4180 CSV with CRLF line ends and the header \`${SCORECARD_CSV_HEADER.join(',')}\`. ` +
          "One row per dimension of the run in VBench order: `score` is the mean per-clip value, `normalised_score` is weight·(score − min)/(max − min) with VBench's leaderboard constants, `clips` the scored clips, `method` the methods used (`|`-joined); a dimension with no scored clip has empty scores and clips 0. " +
          'Then `Quality`, `Semantic` and `Total` rows (category `aggregate`) as the VBench leaderboard computes them: Quality and Semantic are Σ normalised / Σ weights over their group, Total = (4·Quality + Semantic)/5; `score` and `normalised_score` both hold the value. ' +
          'With all 16 dimensions scored this is exactly VBench (`method` = `vbench_leaderboard`); otherwise each group is averaged over its scored dimensions (`vbench_leaderboard_partial`). ' +
          "After VBench's six columns (so a reader of that layout keeps working): `ci95_low` and `ci95_high`, the row's 95 % confidence interval (a bootstrap over prompts seeded from the run id; empty when there is no score or its clip group has one prompt), and `prompts`, the prompts behind the row. Readable in any status.",
        params: BenchIdParams,
        response: {
          200: {
            description: 'The scorecard.',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const csv = await bench.csv(callerOf(request).id, request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${request.params.id}.csv"`)
        .send(csv);
    },
  );
}
