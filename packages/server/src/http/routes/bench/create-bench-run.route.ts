import { errorResponses } from '../../schemas/common.js';
import { BENCH_TAG, callerOf } from './context.js';
import type { BenchService } from '../../../services/bench-runs.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchRun, CreateBenchRunBody } from './schemas.js';

export function createBenchRunRoute(app: TypedApp, bench: BenchService): void {
  app.post(
    '/api/v1/bench',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'createBenchRun',
        tags: [BENCH_TAG],
        summary: 'Create a Bench run',
        description:
          'Creates a run of `model_id` on `dimensions`; it starts in `queued` and waits there until a runner serving the model claims a clip. ' +
          '`runner_id` is optional: when given, only that registered runner (which must serve the model) may take the run; when left out, any runner serving the model may. ' +
          'An unknown dimension, model or runner is 400 `validation_failed` whose detail names the bad value; a dimension with no method available on this server is refused the same way. ' +
          'Send an `Idempotency-Key`: a retry with the same key and body replays the first answer.',
        body: CreateBenchRunBody,
        response: {
          201: BenchRun,
          ...errorResponses(
            'validation_failed',
            'invalid_field',
            'unauthorized',
            'conflict',
            'idempotency_mismatch',
            'payload_too_large',
            'unsupported_media_type',
          ),
        },
      },
    },
    async (request, reply) => {
      const run = await bench.create(callerOf(request).id, request.body);
      return reply.code(201).send(run);
    },
  );
}
