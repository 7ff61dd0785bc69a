import type { Engine } from '@vesta/engine';
import type { TypedApp } from '../../app-deps.js';
import { dimensionView } from '../../../services/dimension-view.js';
import { errorResponses } from '../../schemas/common.js';
import { DISCOVERY_TAG, DimensionList } from './schemas.js';

export function listDimensionsRoute(app: TypedApp, engine: Engine): void {
  app.get(
    '/api/v1/dimensions',
    {
      schema: {
        operationId: 'listDimensions',
        tags: [DISCOVERY_TAG],
        summary: 'List the evaluation dimensions',
        description:
          "VBench's 16 dimensions with name, description, category, higherIsBetter, range, every method (what it requires, whether this server can run it now and why not), the default method, VBench's leaderboard normalisation, and the workflows that use it.",
        response: { 200: DimensionList, ...errorResponses('unauthorized') },
      },
    },
    () => Promise.resolve({ items: engine.dimensions().map(dimensionView) }),
  );
}
