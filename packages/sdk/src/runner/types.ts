/**
 * Types of the runner protocol as the runner loop sees them (camelCase, as the API sends them),
 * and of the generator callables that the loop drives.
 */
import type { RequestOptions } from '../core/http.js';
import type { NodeReadableLike } from '../uploads/source.js';

/** The lease a claim grants: renew it with heartbeats before `expiresAt`. */
export interface TaskLease {
  id: string;
  expiresAt: string;
  ttlSeconds: number;
}

/** One clip to generate: a prompt of a run, one sample of it. */
export interface RunnerTask {
  id: string;
  runId: string;
  modelId: string;
  prompt: string;
  auxiliary: Record<string, string> | null;
  dimensions: string[];
  sampleIndex: number;
  seed: number;
  attempt: number;
  maxAttempts: number;
  lease: TaskLease;
}

export type RunnerLogLevel = 'info' | 'warn' | 'error';

/** A log line shipped to the run with a heartbeat, a completion or a failure. */
export interface RunnerLogLine {
  at?: string;
  level?: RunnerLogLevel;
  message: string;
}

export interface RegisterRunnerBody {
  name: string;
  models: string[];
  maxConcurrency?: number;
  version?: string;
}

export interface RegisteredRunner {
  id: string;
  name: string;
  models: string[];
}

export interface HeartbeatReply {
  expiresAt: string;
  cancelled: boolean;
}

export interface TaskUploadTicket {
  videoId: string;
  uploadUrl: string;
  expiresAt: string;
  method: string;
  headers: Record<string, string>;
}

/** The runner endpoints the loop needs (`vesta.runners` provides them). */
export interface RunnerApi {
  register(body: RegisterRunnerBody, opts?: RequestOptions): Promise<RegisteredRunner>;
  /** Long-polls for a task; `null` when none arrived within `waitSeconds`. */
  claim(runnerId: string, body: { waitSeconds?: number }, opts?: RequestOptions): Promise<RunnerTask | null>;
  heartbeat(
    taskId: string,
    body: { leaseId: string; logs?: RunnerLogLine[] },
    opts?: RequestOptions,
  ): Promise<HeartbeatReply>;
  createUploadUrl(
    taskId: string,
    body: { leaseId: string; fileName: string; contentType: string },
    opts?: RequestOptions,
  ): Promise<TaskUploadTicket>;
  complete(
    taskId: string,
    body: { leaseId: string; videoId: string; logs?: RunnerLogLine[] },
    opts?: RequestOptions,
  ): Promise<unknown>;
  fail(
    taskId: string,
    body: { leaseId: string; error: string; retryable?: boolean; logs?: RunnerLogLine[] },
    opts?: RequestOptions,
  ): Promise<unknown>;
  deregister(runnerId: string, opts?: RequestOptions): Promise<void>;
}

/**
 * A generated clip: a file path (Node), bytes (Uint8Array, Buffer, ArrayBuffer), a Blob/File, a
 * web ReadableStream or a Node Readable — or one of those with its file name and media type.
 */
export type ClipSource =
  string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | NodeReadableLike;
export type ClipOutput =
  | ClipSource
  | {
      clip: ClipSource;
      fileName?: string;
      contentType?: string;
      /** Called once the task is over (uploaded or not): remove temporary files here. */
      cleanup?: () => void | Promise<void>;
    };

/** What a generator receives for one task. */
export interface GenerateContext {
  task: RunnerTask;
  prompt: string;
  seed: number;
  sampleIndex: number;
  auxiliary: Record<string, string> | null;
  dimensions: string[];
  /** Aborted when the run is cancelled, the lease is lost, or the runner stops. */
  signal: AbortSignal;
  /** Adds a line to the run's log (shipped with the next heartbeat). */
  log: (message: string, level?: RunnerLogLevel) => void;
}

export type GenerateFn = (ctx: GenerateContext) => Promise<ClipOutput> | ClipOutput;

/** Why a task's generation was stopped. */
export type StopReason = 'cancelled' | 'lease_lost' | 'stopping';

/** What the runner reports through `onLog` (the CLI prints these as JSON lines). */
export type RunnerEvent =
  | { type: 'registered'; runnerId: string; name: string; models: string[] }
  | {
      type: 'claimed';
      taskId: string;
      runId: string;
      prompt: string;
      seed: number;
      sampleIndex: number;
      attempt: number;
    }
  | { type: 'log'; taskId: string; level: RunnerLogLevel; message: string }
  | { type: 'uploaded'; taskId: string; videoId: string; bytes: number | undefined }
  | { type: 'completed'; taskId: string; runId: string; videoId: string; ms: number }
  | { type: 'failed'; taskId: string; runId: string; error: string; retryable: boolean }
  | { type: 'rejected'; taskId: string; runId: string; code: string; detail: string }
  | { type: 'cancelled'; taskId: string; runId: string }
  | { type: 'lease_lost'; taskId: string; runId: string }
  | { type: 'handed_back'; taskId: string; runId: string }
  | { type: 'retrying'; operation: string; error: string; delayMs: number }
  | { type: 'stopping'; inFlight: number; graceMs: number }
  | { type: 'stopped'; summary: RunnerSummary };

export interface RunnerSummary {
  runnerId: string | undefined;
  /** Tasks whose clip was accepted. */
  completed: number;
  /** Attempts that failed (generator error, bad clip). */
  failed: number;
  /** Tasks stopped because their run was cancelled. */
  cancelled: number;
  /** Tasks whose lease was lost (the server gave them to another runner). */
  leaseLost: number;
  /** Tasks handed back (failed retryable) because the runner stopped. */
  handedBack: number;
}
