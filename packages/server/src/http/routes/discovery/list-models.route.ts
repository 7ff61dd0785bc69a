import type { ModelCatalog } from '../../../services/bench-discovery.js';
import type { TypedApp } from '../../app-deps.js';
import { errorResponses } from '../../schemas/common.js';
import { DISCOVERY_TAG, ModelList } from './schemas.js';

export function listModelsRoute(app: TypedApp, models: ModelCatalog): void {
  app.get(
    '/api/v1/models',
    {
      schema: {
        operationId: 'listModels',
        tags: [DISCOVERY_TAG],
        summary: 'List the models',
        description:
          'Video generators that Bench runs can evaluate, each with the registered runners serving it and whether one is online (seen in the last 60 seconds). Empty on a fresh server: operators add models, and runners declare the ones they serve.',
        response: { 200: ModelList, ...errorResponses('unauthorized') },
      },
    },
    async () => ({ items: await models.list() }),
  );
}
