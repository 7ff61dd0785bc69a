import type { ModelService } from '../../../services/model.service.js';
import type { TypedApp } from '../../app-deps.js';
import { userOf } from '../sessions/session-routes.js';
import { errorResponses } from '../../schemas/common.js';
import { DISCOVERY_TAG, ModelList } from './schemas.js';

export function listModelsRoute(app: TypedApp, models: ModelService): void {
  app.get(
    '/api/v1/models',
    {
      schema: {
        operationId: 'listModels',
        tags: [DISCOVERY_TAG],
        summary: 'List the models',
        description:
          "Video generators that Bench runs can evaluate, each with the caller's registered runners serving it and whether one is online (seen in the last 60 seconds, 2 × the longest claim wait). " +
          "The built-in `vesta-demo` is a procedural demo generator (not a real model) for trying a run without a GPU. Global models (built in, or added by operators with `vesta admin add-model`) are listed for every user; a model id that one of the caller's runners declared is private to the caller and listed for the caller only (for any other user it does not exist).",
        response: { 200: ModelList, ...errorResponses('unauthorized') },
      },
    },
    async (request) => ({ items: await models.list(userOf(request).id) }),
  );
}
