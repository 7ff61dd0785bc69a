import type { FastifyReply } from 'fastify';
import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_RESOURCE, BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import { scorecardJson } from '../../../services/bench-scorecard.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchIdParams, BenchRun } from './schemas.js';

export function getBenchRunRoute(app: TypedApp, bench: BenchRunService): void {
  app.get(
    '/api/v1/bench/:id',
    {
      config: { resource: BENCH_RESOURCE },
      schema: {
        operationId: 'getBenchRun',
        tags: [BENCH_TAG],
        summary: 'Get a Bench run',
        description:
          'The run with its `status` and `progress`. Poll it until `status` is `completed`, `failed` or `cancelled`; then `scorecard` holds its final scores with 95 % confidence intervals (stored when the run ended, so this read stays one row).',
        params: BenchIdParams,
        response: {
          200: BenchRun,
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const run = await bench.get(callerOf(request).id, request.params.id);
      if (run.scorecard === null) return run;
      // A finished run: its stored scorecard's JSON is kept (it never changes), and spliced into
      // the run's fields as this route's schema serialises them, in place of the null that
      // schema gives for it — the same bytes, without checking and serialising the scorecard
      // against its schema on every poll (which cost more than the rest of the read).
      const head = reply.serializeInput({ ...run, scorecard: null }, '200') as string;
      const tail = '"scorecard":null}';
      if (!head.endsWith(tail)) return run;
      // The typed reply takes the run object; this body is its JSON text, sent as is.
      return (reply as unknown as FastifyReply)
        .type('application/json; charset=utf-8')
        .send(`${head.slice(0, -tail.length)}"scorecard":${scorecardJson(run.scorecard)}}`);
    },
  );
}
