/**
 * Runners: register, list, get, deregister, and the long-poll claim. A runner acts for the user
 * whose API key registered it; only that user's keys can use it.
 */
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RunnerService } from '../../../services/runner.service.js';
import { DEFAULT_CLAIM_WAIT_SECONDS, MAX_CLAIM_WAIT_SECONDS } from '../../../services/runner.service.js';
import type { RunnerClaimService } from '../../../services/runner-claim.service.js';
import type { TypedApp } from '../../app-deps.js';
import {
  OWNED_READ_ERRORS,
  OWNED_RESOURCE_ERRORS,
  errorResponses,
  noContentResponses,
} from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';
import {
  ClaimBody,
  ClaimResponse,
  RUNNERS_TAG,
  RUNNER_RESOURCE,
  RegisterRunnerBody,
  Runner,
  RunnerIdParams,
  RunnerList,
} from './schemas.js';

/** An empty claim body means `{}` (all defaults). */
function emptyBodyIsObject(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}

export function runnerRoutes(app: TypedApp, runners: RunnerService, claims: RunnerClaimService): void {
  app.post(
    '/api/v1/runners',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'registerRunner',
        tags: [RUNNERS_TAG],
        summary: 'Register a runner',
        description:
          "Registers a process that generates clips for Bench runs and returns its `id`. The runner acts for the user whose X-API-Key registered it: it claims only tasks of that user's runs whose model is one of `models`, and whose run names no runner or names this one. " +
          "Runners declare the models they serve: an id that is neither a global model (built in or added by the operator) nor one of the caller's own private models becomes a private model of the caller (name = id), listed by GET /api/v1/models for the caller only; to every other user it does not exist, and another user may declare the same id for a model of their own. Each call registers a new runner; send an `Idempotency-Key` so that a retried registration replays the first answer.",
        body: RegisterRunnerBody,
        response: {
          201: Runner,
          ...errorResponses(
            'validation_failed',
            'invalid_field',
            'unauthorized',
            'conflict',
            'idempotency_mismatch',
          ),
        },
      },
    },
    async (request, reply) => {
      const runner = await runners.register(userOf(request).id, request.body);
      return reply.code(201).send(runner);
    },
  );

  app.get(
    '/api/v1/runners',
    {
      schema: {
        operationId: 'listRunners',
        tags: [RUNNERS_TAG],
        summary: "List the caller's runners",
        description:
          "Every runner registered with one of the caller's keys, oldest first, with the models it serves and whether it is online.",
        response: { 200: RunnerList, ...errorResponses('unauthorized') },
      },
    },
    async (request) => ({ items: await runners.list(userOf(request).id) }),
  );

  app.get(
    '/api/v1/runners/:id',
    {
      config: { resource: RUNNER_RESOURCE },
      schema: {
        operationId: 'getRunner',
        tags: [RUNNERS_TAG],
        summary: 'Get a runner',
        description:
          "A runner of the caller. Another user's runner is 403 `forbidden`; an unknown id 404 `not_found`.",
        params: RunnerIdParams,
        response: {
          200: Runner,
          ...errorResponses(...OWNED_READ_ERRORS),
        },
      },
    },
    async (request) => runners.get(userOf(request).id, request.params.id),
  );

  app.delete(
    '/api/v1/runners/:id',
    {
      config: { resource: RUNNER_RESOURCE, noBody: true },
      schema: {
        operationId: 'deregisterRunner',
        tags: [RUNNERS_TAG],
        summary: 'Deregister a runner',
        description:
          "Removes the runner. Tasks it holds go back to the queue at once (the interrupted attempt does not count); runs that named it as `runner_id` become open to any of the user's runners serving their model.",
        params: RunnerIdParams,
        response: noContentResponses('Deregistered.', ...OWNED_RESOURCE_ERRORS),
      },
    },
    async (request, reply) => {
      await runners.deregister(userOf(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/runners/:id/claim',
    {
      config: { resource: RUNNER_RESOURCE },
      preValidation: emptyBodyIsObject,
      schema: {
        operationId: 'claimRunnerTask',
        tags: [RUNNERS_TAG],
        summary: 'Claim a generation task (long-poll)',
        description:
          `Waits up to \`waitSeconds\` (0–${MAX_CLAIM_WAIT_SECONDS}, default ${DEFAULT_CLAIM_WAIT_SECONDS}) for a task this runner may take and answers 200 \`{ task }\` with a lease, or 204 when none arrived in time (claim again). ` +
          'It answers as soon as a task becomes available (a run is created, a task is re-queued), and early with 204 when the server shuts down. ' +
          "Eligible: pending tasks of the caller's runs whose model the runner serves and whose run has no `runner_id` or this runner's, oldest run first, while the runner holds fewer than `maxConcurrency` tasks. " +
          'The first claim of a run moves it from `queued` to `generating`. Then: heartbeat within the lease, upload-url, PUT, complete (or fail).',
        params: RunnerIdParams,
        body: ClaimBody,
        response: {
          200: ClaimResponse,
          204: Type.Null({
            description: 'No task arrived before the wait ended (or the server is shutting down).',
          }),
          ...errorResponses(...OWNED_RESOURCE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      // The wait ends early when the caller goes away.
      const gone = new AbortController();
      const onClose = (): void => gone.abort();
      reply.raw.once('close', onClose);
      try {
        const task = await claims.claim(
          userOf(request).id,
          request.params.id,
          request.body.waitSeconds ?? DEFAULT_CLAIM_WAIT_SECONDS,
          gone.signal,
        );
        if (task === null) return reply.code(204).send(null);
        return reply.code(200).send({ task });
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
}
