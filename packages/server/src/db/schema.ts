/**
 * The database schema as Kysely types. `CoreTables` (users, keys, sessions, videos, scores,
 * idempotency, jobs) lives here; the Bench tables live in `schema-bench.ts`. All timestamps are
 * epoch milliseconds; JSON columns hold serialised text.
 */
import type { BenchTables } from './schema-bench.js';
import type { VideoState } from '../domain/clip-lifecycle.js';
import type { JudgingTables } from './schema-judging.js';

export type UserRole = 'admin' | 'user';

export interface UsersTable {
  id: string;
  name: string;
  created_at: number;
  /** Lower-cased sign-in email; null for users made by `vesta admin create-key` only. */
  email: string | null;
  /** `scrypt$…` (services/passwords.ts); null: cannot sign in to the dashboard. */
  password_hash: string | null;
  role: UserRole;
  /** Set when an admin disabled the user: no sign-in, sessions and keys revoked. */
  disabled_at: number | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  /** Short public part of the key, shown to operators and used to find the row. */
  prefix: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  hash: string;
  created_at: number;
  revoked_at: number | null;
  /** Label given in the dashboard; null for keys made by `vesta admin create-key`. */
  name: string | null;
  /** After this time the key answers 401; null: never expires. */
  expires_at: number | null;
  /** Last successful check, written in batches (to within a minute or so; services/api-key.service.ts). */
  last_used_at: number | null;
}

/** A signed-in dashboard browser. Only the SHA-256 of the cookie's token is stored. */
export interface WebSessionsTable {
  /** Public id (listing, revoking); not the cookie's token. */
  id: string;
  token_hash: string;
  user_id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: number;
  /** Updated at most once a minute; the idle expiry counts from here. */
  last_seen_at: number;
  /** Absolute expiry, fixed at sign-in. */
  expires_at: number;
}

export interface InvitesTable {
  id: string;
  /** SHA-256 of the single-use token carried by the invite link. */
  token_hash: string;
  email: string;
  role: UserRole;
  created_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
}

/** One row (id 1) once the first admin exists; its primary key makes setup race-safe. */
export interface AccountSetupTable {
  id: number;
  completed_at: number;
}

/** `bench`: the holder of one Bench run's clips (its id is the run id; never current, never reset). */
export type SessionKind = 'score' | 'rank' | 'bench';

export interface SessionsTable {
  /** The run id that appears in paths. */
  id: string;
  user_id: string;
  kind: SessionKind;
  /** Rank only: the prompt locked by the first accepted upload-url. */
  prompt: string | null;
  created_at: number;
  /** Set when the session was reset; a retired run id answers 409 conflict. */
  retired_at: number | null;
  /** 1 while this is the user's current session of its kind (unique per user and kind). */
  active: number | null;
}

/** A video's states and their transitions: `domain/clip-lifecycle.ts`. */
export type { VideoState };

export interface VideosTable {
  id: string;
  session_id: string;
  user_id: string;
  file_name: string;
  content_type: string;
  prompt: string | null;
  /** JSON object of auxiliary prompt info, or null. */
  auxiliary: string | null;
  state: VideoState;
  error_code: string | null;
  error_detail: string | null;
  blob_key: string;
  max_bytes: number;
  size_bytes: number | null;
  upload_expires_at: number;
  /** Set while a PUT streams; cleared when it fails so that the URL can be retried. */
  upload_started_at: number | null;
  /** The process whose PUT is streaming (its process-lock id on PostgreSQL; null on SQLite). */
  upload_owner: string | null;
  /** JSON `ClipProbe` from the engine, set at confirm; the evaluation reuses it. */
  probe: string | null;
  /** Version (S3 ETag) of the object confirm checked; null for the local directory. */
  blob_version: string | null;
  /** JSON array of the dimension ids scheduled for scoring, set at confirm. */
  dimensions: string | null;
  created_at: number;
  uploaded_at: number | null;
  confirmed_at: number | null;
  scored_at: number | null;
}

export interface ScoresTable {
  video_id: string;
  dimension: string;
  value: number;
  method: string;
  method_version: string;
  /** JSON `FramesUsed`. */
  frames: string;
  /** JSON `ModelRef[]`. */
  models: string;
  /** JSON details or null. */
  details: string | null;
  elapsed_ms: number;
  created_at: number;
}

export interface ScoreFailuresTable {
  video_id: string;
  dimension: string;
  code: string;
  detail: string;
}

export interface IdempotencyTable {
  user_id: string;
  /** `METHOD /route/template`. */
  route: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  status_code: number | null;
  /** The serialised response body of the first 2xx. */
  response_body: string | null;
  content_type: string | null;
  created_at: number;
  locked_until: number;
}

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface JobsTable {
  id: string;
  type: string;
  /** JSON payload: ids only. */
  payload: string;
  /** What the job is about (e.g. `video:<id>`), for cancellation. */
  subject: string | null;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: number;
  lease_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** Whose work it is (the user id; `''` when none): claims share slots fairly between keys. */
  fairness_key: string;
  /** The lane: 0 `interactive`, 1 `batch`; a key's lower priority is claimed first. */
  priority: number;
  /** When the job was last claimed (a key's latest claim says when it was last served). */
  claimed_at: number | null;
  /** Enqueue order: one more than the largest at insert (FIFO within a key). */
  seq: number;
}

/** A job running in the job engine of the distributed mode (migration `0008-job-engine`). */
export interface JobLeasesTable {
  job_id: string;
  queue: string;
  fairness_key: string;
  subject: string | null;
  worker_id: string;
  lease_until: number;
  started_at: number;
  /** 1 once another process asked to cancel the job. */
  cancel_requested: number;
}

export interface JobFairServedTable {
  fairness_key: string;
  served_at: number;
}

export interface CoreTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  videos: VideosTable;
  scores: ScoresTable;
  score_failures: ScoreFailuresTable;
  idempotency_records: IdempotencyTable;
  jobs: JobsTable;
  web_sessions: WebSessionsTable;
  invites: InvitesTable;
  account_setup: AccountSetupTable;
  service_secrets: ServiceSecretsTable;
  rate_limits: RateLimitsTable;
  job_leases: JobLeasesTable;
  job_fair_served: JobFairServedTable;
}

/** Secrets shared by every process of a deployment (migration 0007). */
export interface ServiceSecretsTable {
  name: string;
  /** Hex. */
  value: string;
  created_at: number;
}

/** Rate-limit buckets and sign-in lockout counters shared by every API process (migration 0012). */
export interface RateLimitsTable {
  /** The limited subject: `k:<key digest>`, `i:<ip>` (buckets), `la:<email>`, `li:<ip>` (sign-in). */
  key: string;
  /** Token bucket (GCRA): the theoretical arrival time, epoch ms. */
  tat: number;
  /** Sign-in throttle: failures counted. */
  failures: number;
  /** Sign-in throttle: locked until, epoch ms. */
  locked_until: number;
  touched_at: number;
  /** The row holds nothing after this (epoch ms); the prune deletes it. */
  expires_at: number;
}

export interface Database extends CoreTables, BenchTables, JudgingTables {}
