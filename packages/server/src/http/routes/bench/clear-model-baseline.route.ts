import { noContentResponses } from '../../schemas/common.js';
import { BENCH_TAG, MODEL_RESOURCE, callerOf } from './context.js';
import type { ModelBaselineService } from '../../../services/model-baseline.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BASELINE_NOTES, ModelIdParams } from './comparison-schemas.js';

export function clearModelBaselineRoute(app: TypedApp, baselines: ModelBaselineService): void {
  app.delete(
    '/api/v1/models/:id/baseline',
    {
      config: { resource: MODEL_RESOURCE, noBody: true },
      schema: {
        operationId: 'clearModelBaseline',
        tags: [BENCH_TAG],
        summary: "Clear a model's baseline run",
        description: `Removes the model's baseline (204 also when none was set). ${BASELINE_NOTES}`,
        params: ModelIdParams,
        response: noContentResponses(
          'Cleared.',
          'validation_failed',
          'invalid_field',
          'unauthorized',
          'not_found',
        ),
      },
    },
    async (request, reply) => {
      await baselines.clear(callerOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
