import { errorResponses } from '../../schemas/common.js';
import { BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchRunPage, RUN_PAGE, pageOfQuery, pageQuery, strictPageQuery } from './schemas.js';

export function listBenchRunsRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench',
    {
      preValidation: strictPageQuery,
      schema: {
        operationId: 'listBenchRuns',
        tags: [BENCH_TAG],
        summary: "List the caller's Bench runs",
        description: `Newest first. \`limit\` defaults to ${RUN_PAGE.defaultLimit} and is at most ${RUN_PAGE.maxLimit}; \`page\` starts at 1. A page or limit that is 0, negative, too large or not a whole number is 400 \`validation_failed\`.`,
        querystring: pageQuery(RUN_PAGE),
        response: { 200: BenchRunPage, ...errorResponses('validation_failed', 'unauthorized') },
      },
    },
    async (request) => bench.list(callerOf(request).id, pageOfQuery(request.query, RUN_PAGE)),
  );
}
