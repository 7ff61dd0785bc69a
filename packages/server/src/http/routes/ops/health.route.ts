/** Liveness, readiness and metrics for orchestration; outside /api/v1 and without auth. */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { AppError } from '../../../errors.js';

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
      const checks: Record<string, string> = {};
      let failed: string | null = null;
      for (const c of deps.readiness) {
        try {
          await c.check();
          checks[c.name] = 'ok';
        } catch (e) {
          checks[c.name] = 'unavailable';
          failed ??= c.name;
          request.log.warn({ err: e, check: c.name }, 'readiness check failed');
        }
      }
      if (failed !== null)
        throw new AppError(
          'upstream_unavailable',
          `not ready: ${Object.entries(checks)
            .filter(([, v]) => v !== 'ok')
            .map(([k]) => k)
            .join(', ')} unavailable`,
          { retryAfterSeconds: 5 },
        );
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
