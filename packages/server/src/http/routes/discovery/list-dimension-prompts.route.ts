import { isDimensionId, promptsForDimension } from '@vesta/engine';
import { notFound } from '../../../errors.js';
import type { TypedApp } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { DISCOVERY_TAG, DimensionIdParams, DimensionPrompts } from './schemas.js';

export function listDimensionPromptsRoute(app: TypedApp): void {
  app.get(
    '/api/v1/dimensions/:id/prompts',
    {
      // A catalogue entry every user may read (no owner).
      config: { resource: 'dimension' },
      schema: {
        operationId: 'listDimensionPrompts',
        tags: [DISCOVERY_TAG],
        summary: "A dimension's Bench prompts",
        description:
          "The prompts Bench runs generate clips from for this dimension: Vesta's own versioned suite (`suiteVersion`), each prompt with the auxiliary info its dimension needs, and the clip group it shares with other dimensions (a run generates each clip once). A run takes each prompt × `samples_per_prompt` (default 5). An unknown dimension is 404 `not_found`.",
        params: DimensionIdParams,
        response: {
          200: DimensionPrompts,
          ...errorResponses('validation_failed', 'unauthorized', 'not_found'),
        },
      },
    },
    (request) => {
      const { id } = request.params;
      if (!isDimensionId(id))
        return Promise.reject(notFound(`dimension '${id}' (GET /api/v1/dimensions lists them)`));
      return Promise.resolve(promptsForDimension(id));
    },
  );
}
