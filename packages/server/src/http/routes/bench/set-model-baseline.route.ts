import { OWNED_RESOURCE_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_TAG, MODEL_RESOURCE, callerOf } from './context.js';
import type { ModelBaselineService } from '../../../services/model-baseline.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BASELINE_NOTES, ModelBaseline, ModelIdParams, SetModelBaselineBody } from './comparison-schemas.js';

export function setModelBaselineRoute(app: TypedApp, baselines: ModelBaselineService): void {
  app.put(
    '/api/v1/models/:id/baseline',
    {
      config: { resource: MODEL_RESOURCE },
      schema: {
        operationId: 'setModelBaseline',
        tags: [BENCH_TAG],
        summary: "Set a model's baseline run",
        description: `Makes \`run_id\` — a completed run of this model, of the caller's — the model's baseline (replacing any earlier one; setting the same again answers the same). A run of another model is 400 \`validation_failed\`; another user's run 403; a run not completed 409 \`conflict\`. Deleting the run clears the baseline. ${BASELINE_NOTES}`,
        params: ModelIdParams,
        body: SetModelBaselineBody,
        response: {
          200: ModelBaseline,
          ...errorResponses(...OWNED_RESOURCE_ERRORS, 'conflict'),
        },
      },
    },
    async (request) => baselines.set(callerOf(request).id, request.params.id, request.body.run_id),
  );
}
