/**
 * The leased task operations of the runner protocol: heartbeat, upload-url, complete, fail. Each
 * carries the `leaseId` from the claim; a stale, expired or unknown lease is 409 `conflict`.
 */
import type { RunnerTaskService } from '../../../services/runner-task.service.js';
import type { ServerConfig } from '../../../config.js';
import type { TypedApp } from '../../app-deps.js';
import { publicBaseOf } from '../../public-base.js';
import { OWNED_RESOURCE_ERRORS, errorResponses } from '../../schemas/common.js';
import { UploadUrlResponse, Video } from '../../schemas/sessions.js';
import { userOf } from '../sessions/session-routes.js';
import { Type } from 'typebox';
import {
  CompleteBody,
  FailBody,
  FailResponse,
  HeartbeatBody,
  HeartbeatResponse,
  RUNNERS_TAG,
  RUNNER_TASK_RESOURCE,
  RunnerTask,
  RunnerUploadUrlBody,
  TaskIdParams,
} from './schemas.js';

const LEASE_409 =
  "409 `conflict` when `leaseId` is not the task's current lease, the lease expired, or the task is no longer claimed (stop working on it).";

export function runnerTaskRoutes(app: TypedApp, runners: RunnerTaskService, config: ServerConfig): void {
  app.post(
    '/api/v1/runner-tasks/:taskId/heartbeat',
    {
      config: { resource: RUNNER_TASK_RESOURCE },
      schema: {
        operationId: 'heartbeatRunnerTask',
        tags: [RUNNERS_TAG],
        summary: "Renew a task's lease",
        description:
          'Extends the lease by its TTL and answers the new `expiresAt`. `cancelled: true` means the run was cancelled (or ended): stop generating and do not upload or complete. ' +
          `Optional \`logs\` are added to the run's log. ${LEASE_409} A lease that is not renewed in time expires: the task goes back to the queue (or fails after its last attempt).`,
        params: TaskIdParams,
        body: HeartbeatBody,
        response: {
          200: HeartbeatResponse,
          ...errorResponses(...OWNED_RESOURCE_ERRORS, 'conflict'),
        },
      },
    },
    async (request) =>
      runners.heartbeat(userOf(request).id, request.params.taskId, request.body.leaseId, request.body.logs),
  );

  app.post(
    '/api/v1/runner-tasks/:taskId/upload-url',
    {
      config: { resource: RUNNER_TASK_RESOURCE, idempotent: true },
      schema: {
        operationId: 'createRunnerTaskUploadUrl',
        tags: [RUNNERS_TAG],
        summary: "Get an upload URL for a task's clip",
        description:
          'The same upload flow as Score and Rank: answers `videoId`, `uploadUrl` (signed, single use, until `expiresAt`), `method: PUT`, the `headers` to send and `maxBytes`; PUT the raw bytes there (PUT /api/v1/uploads/{videoId}), then call complete with the videoId. ' +
          `The clip is stored with the task's prompt and auxiliary info. An upload for a cancelled run is 409 \`conflict\`; ${LEASE_409}`,
        params: TaskIdParams,
        body: RunnerUploadUrlBody,
        response: {
          201: UploadUrlResponse,
          ...errorResponses(...OWNED_RESOURCE_ERRORS, 'conflict', 'idempotency_mismatch'),
        },
      },
    },
    async (request, reply) => {
      const { leaseId, fileName, contentType, sizeBytes } = request.body;
      const ticket = await runners.createUploadUrl(
        userOf(request).id,
        request.params.taskId,
        leaseId,
        { fileName, contentType, ...(sizeBytes === undefined ? {} : { sizeBytes }) },
        () => publicBaseOf(request, config),
      );
      return reply.code(201).send(ticket);
    },
  );

  app.post(
    '/api/v1/runner-tasks/:taskId/complete',
    {
      config: { resource: RUNNER_TASK_RESOURCE, idempotent: true },
      schema: {
        operationId: 'completeRunnerTask',
        tags: [RUNNERS_TAG],
        summary: 'Complete a task with its uploaded clip',
        description:
          'Verifies the uploaded clip exactly as confirm-upload does (present, size, container magic bytes, decodable) and enqueues its evaluation once, on every dimension of the run that uses this clip (its clip group). Answers the task (now `evaluating`) and the clip. ' +
          'A file that is not a usable video is 400 `invalid_video` and fails this attempt (the task goes back to the queue while attempts remain). A videoId not minted for this task by upload-url is 400 `validation_failed`; a clip not yet PUT is 409. ' +
          `Completing again with the same videoId answers the same. An upload for a cancelled run is 409 \`conflict\`; ${LEASE_409}`,
        params: TaskIdParams,
        body: CompleteBody,
        response: {
          200: Type.Object({ task: RunnerTask, video: Video }),
          ...errorResponses(
            'validation_failed',
            'invalid_field',
            'invalid_video',
            'unauthorized',
            'forbidden',
            'not_found',
            'conflict',
            'idempotency_mismatch',
          ),
        },
      },
    },
    async (request) =>
      runners.complete(
        userOf(request).id,
        request.params.taskId,
        request.body.leaseId,
        request.body.videoId,
        request.body.logs,
      ),
  );

  app.post(
    '/api/v1/runner-tasks/:taskId/fail',
    {
      config: { resource: RUNNER_TASK_RESOURCE, idempotent: true },
      schema: {
        operationId: 'failRunnerTask',
        tags: [RUNNERS_TAG],
        summary: 'Report that a clip could not be generated',
        description:
          "Ends this attempt with `error`. With `retryable` true (default) the task goes back to the queue while attempts remain (the server's VESTA_RUNNER_MAX_ATTEMPTS, default 3), else it fails with the reason; a task that fails for good still lets the run complete when every dimension has a scored clip. " +
          `For a cancelled run it answers the cancelled task. ${LEASE_409}`,
        params: TaskIdParams,
        body: FailBody,
        response: {
          200: FailResponse,
          ...errorResponses(...OWNED_RESOURCE_ERRORS, 'conflict', 'idempotency_mismatch'),
        },
      },
    },
    async (request) =>
      runners.fail(
        userOf(request).id,
        request.params.taskId,
        request.body.leaseId,
        request.body.error,
        request.body.retryable ?? true,
        request.body.logs,
      ),
  );
}
