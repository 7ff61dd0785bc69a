import { OWNED_RESOURCE_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams, BenchRun } from './schemas.js';

export function cancelBenchRunRoute(app: TypedApp, bench: BenchRunService): void {
  app.post(
    '/api/v1/bench/:id/cancel',
    {
      config: { resource: BENCH_RESOURCE, idempotent: true, noBody: true },
      schema: {
        operationId: 'cancelBenchRun',
        tags: [BENCH_TAG],
        summary: 'Cancel a Bench run',
        description:
          'Moves a `queued`, `generating` or `evaluating` run to `cancelled`: unfinished clips are cancelled and their pending scoring stopped. ' +
          'Cancelling a run that is already `completed`, `failed` or `cancelled` is 409 `conflict`. Takes no body. Honours `Idempotency-Key`.',
        params: BenchIdParams,
        response: {
          200: BenchRun,
          ...errorResponses(...OWNED_RESOURCE_ERRORS, 'conflict', 'idempotency_mismatch'),
        },
      },
    },
    async (request) => bench.cancel(callerOf(request).id, request.params.id),
  );
}
