import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import {
  BenchIdParams,
  BenchVideoPage,
  VIDEO_PAGE,
  pageOfQuery,
  pageQuery,
  strictPageQuery,
} from './schemas.js';

export function listBenchVideosRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench/:id/videos',
    {
      config: { resource: BENCH_RESOURCE },
      preValidation: strictPageQuery,
      schema: {
        operationId: 'listBenchVideos',
        tags: [BENCH_TAG],
        summary: "List a Bench run's clips",
        description: `One item per clip (prompt × sample) in task order, with its state, runner and per-dimension scores. \`limit\` defaults to ${VIDEO_PAGE.defaultLimit}, at most ${VIDEO_PAGE.maxLimit}.`,
        params: BenchIdParams,
        querystring: pageQuery(VIDEO_PAGE),
        response: {
          200: BenchVideoPage,
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request) =>
      bench.videos(callerOf(request).id, request.params.id, pageOfQuery(request.query, VIDEO_PAGE)),
  );
}
