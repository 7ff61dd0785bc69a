/** The discovery reads: /api/v1/dimensions and /api/v1/models. */
import { ModelCatalog } from '../../../services/bench-discovery.js';
import type { RouteModule } from '../../app-deps.js';
import { listDimensionsRoute } from './list-dimensions.route.js';
import { listModelsRoute } from './list-models.route.js';

export const discoveryRoutes: RouteModule = (app, { deps }) => {
  listDimensionsRoute(app, deps.engine);
  listModelsRoute(app, new ModelCatalog({ db: deps.db }));
};
