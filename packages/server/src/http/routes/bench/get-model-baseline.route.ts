import { errorResponses } from '../../schemas/common.js';
import { BENCH_TAG, MODEL_RESOURCE, callerOf } from './context.js';
import type { ModelBaselineService } from '../../../services/model-baseline.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BASELINE_NOTES, ModelBaseline, ModelIdParams } from './comparison-schemas.js';

export function getModelBaselineRoute(app: TypedApp, baselines: ModelBaselineService): void {
  app.get(
    '/api/v1/models/:id/baseline',
    {
      config: { resource: MODEL_RESOURCE },
      schema: {
        operationId: 'getModelBaseline',
        tags: [BENCH_TAG],
        summary: "A model's baseline run",
        description: `The run new runs of the model are compared with (their run page shows the deltas), or \`run_id\` null. ${BASELINE_NOTES}`,
        params: ModelIdParams,
        response: { 200: ModelBaseline, ...errorResponses('validation_failed', 'unauthorized', 'not_found') },
      },
    },
    async (request) => baselines.get(callerOf(request).id, request.params.id),
  );
}
