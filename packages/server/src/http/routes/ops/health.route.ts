/** Liveness, readiness and metrics for orchestration; outside /api/v1 and without auth. */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { AppError } from '../../../errors.js';
import { checkReadiness, describeFailures } from '../../readiness.js';

export const healthRoutes: RouteModule = (app, { deps }) => {
  app.get(
    '/healthz',
    {
      config: { auth: false },
      schema: {
        operationId: 'healthz',
        hide: true,
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    () => Promise.resolve({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { auth: false },
      schema: {
        operationId: 'readyz',
        hide: true,
        response: {
          200: Type.Object({
            status: Type.Literal('ready'),
            checks: Type.Record(Type.String(), Type.String()),
          }),
        },
      },
    },
    async (request) => {
      const { checks, failures } = await checkReadiness(deps.readiness);
      for (const f of failures)
        request.log.warn(
          { err: f.error, check: f.name, reason: f.reason },
          `not ready: ${f.name} unavailable: ${f.reason}`,
        );
      if (failures.length > 0)
        throw new AppError('upstream_unavailable', `not ready: ${describeFailures(failures)}`, {
          retryAfterSeconds: 5,
        });
      return { status: 'ready' as const, checks };
    },
  );

  app.get(
    '/metrics',
    { config: { auth: false }, schema: { operationId: 'metrics', hide: true } },
    (_request, reply) => {
      const registry = app.vestaMetrics.registry;
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
};
