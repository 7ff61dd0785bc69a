/**
 * What the routes of a page of a Bench run's rows share (its clips, its log lines): `GET
 * /api/v1/bench/{id}/<rows>?page&limit` on the caller's run (another user's is 403, an unknown one
 * 404), with the strict page query and the limits of its rows.
 */
import type { Static, TSchema } from 'typebox';
import type { PageRequest } from '../../../domain/views/bench.js';
import type { TypedApp } from '../../app-deps.js';
import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import { BenchIdParams, pageOfQuery, pageQuery, strictPageQuery } from './schemas.js';

export interface RunPageRoute<S extends TSchema> {
  /** `/api/v1/bench/:id/<rows>`. */
  path: `/api/v1/bench/:id/${string}`;
  operationId: string;
  summary: string;
  description: string;
  limits: { defaultLimit: number; maxLimit: number };
  /** The page's response schema; `read` answers what it describes. */
  page: S;
  read(userId: string, runId: string, page: PageRequest): Promise<Static<S>>;
}

export function runPageRoute<S extends TSchema>(app: TypedApp, route: RunPageRoute<S>): void {
  // Widened for Fastify, which cannot resolve a generic schema's type; `RunPageRoute` ties `read`'s
  // answer to the schema instead.
  const page: TSchema = route.page;
  app.get(
    route.path,
    {
      config: { resource: BENCH_RESOURCE },
      preValidation: strictPageQuery,
      schema: {
        operationId: route.operationId,
        tags: [BENCH_TAG],
        summary: route.summary,
        description: route.description,
        params: BenchIdParams,
        querystring: pageQuery(route.limits),
        response: {
          200: page,
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request) =>
      route.read(callerOf(request).id, request.params.id, pageOfQuery(request.query, route.limits)),
  );
}
