/** GET /api/v1/openapi.json: the OpenAPI 3.1 document generated from the route schemas (public). */
import type { RouteModule } from '../../app-deps.js';

export const openApiRoute: RouteModule = (app) => {
  app.get(
    '/api/v1/openapi.json',
    { config: { auth: false }, schema: { operationId: 'getOpenApiDocument', hide: true } },
    () => Promise.resolve(app.swagger()),
  );
};
