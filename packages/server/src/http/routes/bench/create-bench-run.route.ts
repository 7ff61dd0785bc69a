import { errorResponses } from '../../schemas/common.js';
import { BENCH_TAG, callerOf } from './context.js';
import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchRun, CreateBenchRunBody } from './schemas.js';

export function createBenchRunRoute(app: TypedApp, bench: BenchRunService): void {
  app.post(
    '/api/v1/bench',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'createBenchRun',
        tags: [BENCH_TAG],
        summary: 'Create a Bench run',
        description:
          'Creates a run of `model_id` on `dimensions` and plans its clips: for every clip group covering a requested dimension (GET /api/v1/dimensions/{id}/prompts), its prompts (at most `prompts_per_dimension`) × `samples_per_prompt` (default 5), each with a random seed; shared clips are generated once and scored on every requested dimension of their group. ' +
          "The run starts in `queued` and waits there until one of the caller's runners serving the model claims a clip. " +
          "`runner_id` is optional: when given, only that runner (the caller's, serving the model) may take the run; when left out, any of the caller's runners serving the model may. " +
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
