import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams, BenchScorecard } from './schemas.js';

export function getBenchScorecardRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench/:id/scorecard',
    {
      config: { resource: BENCH_RESOURCE },
      schema: {
        operationId: 'getBenchScorecard',
        tags: [BENCH_TAG],
        summary: "A Bench run's scorecard with 95 % intervals",
        description:
          "Per dimension the mean of its scored clips, and Quality, Semantic and Total as VBench's leaderboard computes them, each with its 95 % confidence interval (a bootstrap over prompts seeded from the run id) and the clips and prompts behind it. Readable in any status: a live run's is computed from the clips scored so far (`final` false) on every call; once the run has ended it is the stored, final one, also in `GET /api/v1/bench/{id}`.",
        params: BenchIdParams,
        response: {
          200: BenchScorecard,
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request) => bench.scorecard(callerOf(request).id, request.params.id),
  );
}
