import { errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams, BenchRun } from './schemas.js';

export function getBenchRunRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench/:id',
    {
      config: { resource: BENCH_RESOURCE },
      schema: {
        operationId: 'getBenchRun',
        tags: [BENCH_TAG],
        summary: 'Get a Bench run',
        description:
          'The run with its `status` and `progress`. Poll it until `status` is `completed`, `failed` or `cancelled`; then `scorecard` holds its final scores with 95 % confidence intervals (stored when the run ended, so this read stays one row).',
        params: BenchIdParams,
        response: {
          200: BenchRun,
          ...errorResponses('validation_failed', 'unauthorized', 'forbidden', 'not_found'),
        },
      },
    },
    async (request) => bench.get(callerOf(request).id, request.params.id),
  );
}
