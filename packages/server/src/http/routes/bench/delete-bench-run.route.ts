import { OWNED_RESOURCE_ERRORS, noContentResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams } from './schemas.js';

export function deleteBenchRunRoute(app: TypedApp, bench: BenchRunService): void {
  app.delete(
    '/api/v1/bench/:id',
    {
      config: { resource: BENCH_RESOURCE, noBody: true },
      schema: {
        operationId: 'deleteBenchRun',
        tags: [BENCH_TAG],
        summary: 'Delete a Bench run',
        description:
          'Deletes a finished (`completed`, `failed` or `cancelled`) run with its clips, their files, scores and logs. ' +
          'Deleting a run that is still `queued`, `generating` or `evaluating` is 409 `conflict`: cancel it first, so a delete never races a runner mid-upload.',
        params: BenchIdParams,
        response: noContentResponses('Deleted.', ...OWNED_RESOURCE_ERRORS, 'conflict'),
      },
    },
    async (request, reply) => {
      await bench.delete(callerOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
