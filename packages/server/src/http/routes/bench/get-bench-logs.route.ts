import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams, BenchLogPage, LOG_PAGE, pageOfQuery, pageQuery, strictPageQuery } from './schemas.js';

export function getBenchLogsRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench/:id/logs',
    {
      config: { resource: BENCH_RESOURCE },
      preValidation: strictPageQuery,
      schema: {
        operationId: 'getBenchLogs',
        tags: [BENCH_TAG],
        summary: "A Bench run's log lines",
        description: `Timestamped lines from the server, runners and the evaluator, oldest first. \`limit\` defaults to ${LOG_PAGE.defaultLimit}, at most ${LOG_PAGE.maxLimit}. To follow a run, re-read the last page as \`total\` grows.`,
        params: BenchIdParams,
        querystring: pageQuery(LOG_PAGE),
        response: {
          200: BenchLogPage,
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request) =>
      bench.logs(callerOf(request).id, request.params.id, pageOfQuery(request.query, LOG_PAGE)),
  );
}
