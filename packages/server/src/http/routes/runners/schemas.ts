/** Schemas of the runner protocol: runners, their claim, and the leased task operations. */
import { Type } from 'typebox';
import { BENCH_TASK_STATES } from '../../../domain/clip-lifecycle.js';
import { VIDEO_CONTENT_TYPES } from '../../../domain/views/score-rank.js';
import { sizeBytesSchema } from '../../schemas/sessions.js';
import { DEFAULT_CLAIM_WAIT_SECONDS, MAX_CLAIM_WAIT_SECONDS } from '../../../services/runner.service.js';

export const RUNNERS_TAG = 'Runners';
/** The resource kind the `{id}` of a runner route names (for the ownership walker). */
export const RUNNER_RESOURCE = 'runner';
export const RUNNER_TASK_RESOURCE = 'runner-task';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });
const ModelId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$',
  description: 'A model id: letters, digits and . _ : / - (starting with a letter or digit), at most 128.',
});

export const RunnerIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64, description: 'The runner id (`runner_…`).' }) },
  { additionalProperties: false },
);
export const TaskIdParams = Type.Object(
  { taskId: Type.String({ minLength: 1, maxLength: 64, description: 'The task id (`task_…`).' }) },
  { additionalProperties: false },
);

export const RegisterRunnerBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description: 'A label for the runner (1–100 characters, no control characters), e.g. the host name.',
    }),
    models: Type.Array(ModelId, {
      minItems: 1,
      maxItems: 32,
      uniqueItems: true,
      description:
        "The model ids this runner generates clips for. An id that names neither a global model nor one of the caller's private models becomes a private model of the caller (name = id), which no other user sees.",
    }),
    maxConcurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64,
        default: 1,
        description: 'Tasks the runner may hold at once (default 1); claims beyond it wait.',
      }),
    ),
    version: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "The runner software's version, for operators.",
      }),
    ),
  },
  { title: 'RegisterRunnerBody', additionalProperties: false },
);

export const Runner = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    models: Type.Array(Type.String(), { description: 'Model ids it serves.' }),
    maxConcurrency: Type.Integer(),
    version: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    lastSeenAt: Type.Union([Timestamp, Type.Null()], {
      description: 'Last register, claim, heartbeat, upload-url or complete.',
    }),
    online: Type.Boolean({
      description: `Seen within the last ${2 * MAX_CLAIM_WAIT_SECONDS} seconds (2 × the longest claim wait).`,
    }),
  },
  { title: 'Runner', description: 'A registered runner: a process that generates clips for Bench runs.' },
);

export const RunnerList = Type.Object(
  { items: Type.Array(Runner) },
  { title: 'RunnerList', description: "The caller's runners, oldest first." },
);

export const ClaimBody = Type.Object(
  {
    waitSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_CLAIM_WAIT_SECONDS,
        default: DEFAULT_CLAIM_WAIT_SECONDS,
        description: `How long to wait for a task (long-poll), 0–${MAX_CLAIM_WAIT_SECONDS} s, default ${DEFAULT_CLAIM_WAIT_SECONDS}. 0 answers at once.`,
      }),
    ),
  },
  { title: 'ClaimBody', additionalProperties: false, description: 'An empty body is the same as {}.' },
);

export const Lease = Type.Object(
  {
    id: Type.String({
      description: 'The lease id: send it with every call about this task (a fencing token).',
    }),
    expiresAt: Timestamp,
    ttlSeconds: Type.Integer({
      description: 'Lease length; heartbeat well within it (every ttlSeconds/3 is a good rhythm).',
    }),
  },
  { title: 'Lease', description: 'The lease on a claimed task.' },
);

export const RunnerTask = Type.Object(
  {
    id: Type.String(),
    runId: Type.String(),
    modelId: Type.String({ description: 'The model to generate with.' }),
    prompt: Type.String({ description: 'The text prompt to generate the clip from.' }),
    auxiliary: Type.Record(Type.String(), Type.String(), {
      description: 'Auxiliary prompt info of the suite prompt (object, color, …); {} when none.',
    }),
    dimensions: Type.Array(Type.String(), {
      description: "The run's dimensions the clip will be scored on.",
    }),
    sampleIndex: Type.Integer({ description: 'Which sample of the prompt this is (0-based).' }),
    seed: Type.Integer({ description: 'The random seed to generate with (recorded with the run).' }),
    attempt: Type.Integer({ description: 'This attempt, from 1.' }),
    maxAttempts: Type.Integer(),
    state: Type.Enum(BENCH_TASK_STATES, {
      description:
        'claimed while leased; evaluating/done once completed; pending when re-queued; failed; cancelled.',
    }),
    lease: Type.Union([Lease, Type.Null()], {
      description: 'The lease while the task is claimed; null otherwise.',
    }),
    error: Type.Union([Type.Object({ code: Type.String(), detail: Type.String() }), Type.Null()], {
      description: 'The last failure of the task, if any.',
    }),
  },
  { title: 'RunnerTask', description: 'A generation task: one clip (prompt × sample) of a Bench run.' },
);

export const ClaimResponse = Type.Object({ task: RunnerTask }, { title: 'ClaimResponse' });

export const RunnerLogLine = Type.Object(
  {
    at: Type.Optional(Type.String({ format: 'date-time', description: 'When it happened (default: now).' })),
    level: Type.Optional(
      Type.Union([Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], { default: 'info' }),
    ),
    message: Type.String({ minLength: 1, maxLength: 4000 }),
  },
  { title: 'RunnerLogLine', additionalProperties: false },
);
const Logs = Type.Optional(
  Type.Array(RunnerLogLine, {
    maxItems: 100,
    description: "Log lines to add to the run's log (source `runner`), at most 100 per call.",
  }),
);
const LeaseId = Type.String({ minLength: 1, maxLength: 64, description: 'The lease id from the claim.' });

export const HeartbeatBody = Type.Object(
  { leaseId: LeaseId, logs: Logs },
  { title: 'HeartbeatBody', additionalProperties: false },
);
export const HeartbeatResponse = Type.Object(
  {
    expiresAt: Timestamp,
    cancelled: Type.Boolean({
      description:
        'True when the run was cancelled (or has ended): stop generating, do not upload or complete.',
    }),
  },
  { title: 'HeartbeatResponse' },
);

export const RunnerUploadUrlBody = Type.Object(
  {
    leaseId: LeaseId,
    fileName: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Name of the clip file: no path separators, no "..", no control characters.',
    }),
    contentType: Type.String({
      minLength: 1,
      maxLength: 100,
      description: `Media type of the clip; one of ${VIDEO_CONTENT_TYPES.join(', ')}.`,
    }),
    sizeBytes: Type.Optional(sizeBytesSchema),
  },
  { title: 'RunnerUploadUrlBody', additionalProperties: false },
);

export const CompleteBody = Type.Object(
  {
    leaseId: LeaseId,
    videoId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The videoId from upload-url, after the PUT.',
    }),
    logs: Logs,
  },
  { title: 'CompleteBody', additionalProperties: false },
);

export const FailBody = Type.Object(
  {
    leaseId: LeaseId,
    error: Type.String({
      minLength: 1,
      maxLength: 4000,
      description: 'Why the clip could not be generated.',
    }),
    retryable: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'false: fail the task now; true (default): re-queue it while attempts remain.',
      }),
    ),
    logs: Logs,
  },
  { title: 'FailBody', additionalProperties: false },
);

export const FailResponse = Type.Object({ task: RunnerTask }, { title: 'FailResponse' });
