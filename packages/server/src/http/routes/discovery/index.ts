/** The discovery reads: /api/v1/dimensions, a dimension's prompts, and /api/v1/models. */
import type { RouteModule } from '../../app-deps.js';
import { listDimensionPromptsRoute } from './list-dimension-prompts.route.js';
import { listDimensionsRoute } from './list-dimensions.route.js';
import { listModelsRoute } from './list-models.route.js';

export const discoveryRoutes: RouteModule = (app, { deps }) => {
  listDimensionsRoute(app, deps.engine);
  listDimensionPromptsRoute(app);
  listModelsRoute(app, deps.bench.models);
};
