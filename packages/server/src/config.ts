/**
 * Configuration, parsed once from the environment at start. Every problem is collected and reported
 * together in one `ConfigError`; the process refuses to start rather than fall back silently.
 */
import path from 'node:path';
import { inferenceOptionsFromEnv, modelStoreOptionsFromEnv, resolveInference } from '@vesta/engine';
import type { InferenceOptions, ModelStoreOptions } from '@vesta/engine';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** A host name, IPv4 address or bracketed IPv6 address (as a URL's hostname spells it). */
const HOST_NAME =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface EngineConfig {
  /** worker_threads for pixel work; null lets the engine choose. */
  threads: number | null;
  maxDurationSeconds: number | null;
  maxFrames: number | null;
  maxWidth: number | null;
  maxHeight: number | null;
  /** Decoded work (width × height × frames) a clip may need; null: the engine's default (6e9). */
  maxDecodedPixels: number | null;
  /** Wall-clock budget of one clip: base seconds plus seconds per second of clip (null: engine defaults 60 + 10). */
  clipBudgetBaseSeconds: number | null;
  clipBudgetSecondsPerClipSecond: number | null;
}

/** One token bucket: `quota` requests, refilled evenly over `windowSeconds` (so also the burst). */
export interface RateLimitRule {
  quota: number;
  windowSeconds: number;
}

/** Optional rate limits (off unless set): per API key, and per client IP. */
export interface RateLimitConfig {
  /** VESTA_RATE_LIMIT_PER_KEY, e.g. `600/60` (600 requests a minute per API key or dashboard user). */
  perKey: RateLimitRule | null;
  /** VESTA_RATE_LIMIT_PER_IP, e.g. `1200/1m` (every request from one client address). */
  perIp: RateLimitRule | null;
}
/** Where clips are stored: a directory in the data directory, or an S3-compatible bucket. */
export type BlobStoreConfig =
  | { kind: 'local' }
  | {
      kind: 's3';
      /** VESTA_S3_BUCKET (required). */
      bucket: string;
      /** VESTA_S3_REGION (default: AWS_REGION, else us-east-1). */
      region: string;
      /** VESTA_S3_ENDPOINT: an S3-compatible server's URL; null: AWS S3. */
      endpoint: string | null;
      /** VESTA_S3_FORCE_PATH_STYLE (default: true with an endpoint, false for AWS S3). */
      forcePathStyle: boolean;
      /** VESTA_S3_KEY_PREFIX: prefix of every object key (default none). */
      keyPrefix: string;
    };

/**
 * What this process does (VESTA_ROLE, `vesta serve --role`): `all` serves the API and runs the
 * scoring jobs (the embedded default); `api` serves the API and enqueues but runs no jobs;
 * `worker` runs jobs and the periodic duties and serves only /healthz, /readyz and /metrics.
 * `api` and `worker` need PostgreSQL (several processes on one database).
 */
export type ServerRole = 'all' | 'api' | 'worker';
export const SERVER_ROLES: readonly ServerRole[] = ['all', 'api', 'worker'];

export interface ServerConfig {
  role: ServerRole;
  port: number;
  host: string;
  /** Absolute path of the data directory (SQLite file, blobs, upload-signing secret). */
  dataDir: string;
  /**
   * PostgreSQL connection URL (VESTA_DATABASE_URL, `postgres://…`); null: the embedded SQLite file
   * in the data directory.
   */
  databaseUrl: string | null;
  /** PostgreSQL connection pool size per process (VESTA_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /**
   * The blob store (VESTA_BLOB_STORE `local` or `s3`, VESTA_S3_*); S3 credentials come from the
   * standard AWS chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance role).
   */
  blobStore: BlobStoreConfig;
  /**
   * Base URL clients reach the service at (VESTA_PUBLIC_URL): upload URLs and invite links are
   * minted under it. Null (unset): they are minted under the origin each request came to, when its
   * Host names this machine (loopback, the listen address or any address of the machine when
   * listening on all, the machine's host name) or one of `allowedHosts` (http/public-base.ts).
   */
  publicUrl: string | null;
  /** Further host names requests may name when VESTA_PUBLIC_URL is unset (VESTA_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** Largest clip accepted by an upload PUT, in bytes. */
  uploadMaxBytes: number;
  /** Lifetime of an upload URL, in seconds. */
  uploadUrlTtlSeconds: number;
  /** Largest JSON request body, in bytes. */
  bodyLimitBytes: number;
  /** Deepest nesting (objects and arrays) a JSON body may have; deeper is 400 before parsing. */
  jsonMaxDepth: number;
  /** Origins allowed by CORS; `['*']` allows any (API keys travel in headers, never cookies). */
  corsOrigins: string[];
  logLevel: LogLevel;
  engine: EngineConfig;
  /**
   * The model store of the model-backed methods (VESTA_MODELS_DIR, VESTA_MODELS_LOCAL_DIR,
   * VESTA_MODELS_MIRROR, VESTA_OFFLINE, VESTA_MODELS_MANIFEST; docs/models.md).
   */
  models: ModelStoreOptions;
  /** Model inference (VESTA_EP, VESTA_PRECISION, VESTA_INFERENCE_BATCH, VESTA_INFERENCE_THREADS). */
  inference: InferenceOptions;
  /** Jobs run at the same time by this process's worker. */
  jobConcurrency: number;
  /**
   * Lease of a running job, renewed by its worker's heartbeat (seconds): a worker that dies loses
   * its jobs to another after about this long.
   */
  jobLeaseSeconds: number;
  /** How long shutdown waits for in-flight requests and jobs before cutting jobs off. */
  shutdownGraceSeconds: number;
  /** Bench runners: lease of a claimed generation task, renewed by each heartbeat (seconds). */
  runnerLeaseSeconds: number;
  /** Bench runners: attempts of a generation task (lease expiries and retryable failures) before it fails. */
  runnerMaxAttempts: number;
  /** Dashboard sessions: signed out after this many minutes unused (VESTA_SESSION_IDLE_MINUTES). */
  sessionIdleMinutes: number;
  /** Dashboard sessions: signed out this many hours after sign-in, used or not (VESTA_SESSION_MAX_HOURS). */
  sessionMaxHours: number;
  /** Dashboard invite links work for this many hours (VESTA_INVITE_TTL_HOURS). */
  inviteTtlHours: number;
  /** Optional rate limits (VESTA_RATE_LIMIT_PER_KEY, VESTA_RATE_LIMIT_PER_IP); both null by default. */
  rateLimits: RateLimitConfig;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

type Env = Record<string, string | undefined>;

/** Parses and validates the environment. Throws one `ConfigError` listing every problem. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): ServerConfig {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw)) {
      problems.push(`${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    const n = Number(raw);
    if (n < min || n > max) {
      problems.push(`${name} must be between ${min} and ${max}, got ${raw}`);
      return fallback;
    }
    return n;
  };
  const optionalInt = (name: string, min: number, max: number): number | null =>
    str(name) === undefined ? null : int(name, 0, min, max);

  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(cwd, str('VESTA_DATA_DIR') ?? './.vesta');

  const databaseUrl = str('VESTA_DATABASE_URL') ?? null;
  if (databaseUrl !== null) {
    let ok = false;
    try {
      ok = /^postgres(ql)?:$/i.test(new URL(databaseUrl).protocol);
    } catch {
      ok = false;
    }
    // Never echo the URL: it may carry a password.
    if (!ok) problems.push('VESTA_DATABASE_URL must be a postgres:// (or postgresql://) URL');
  }
  const roleRaw = (str('VESTA_ROLE') ?? 'all').toLowerCase();
  const role = SERVER_ROLES.find((r) => r === roleRaw);
  if (!role) problems.push(`VESTA_ROLE (--role) must be one of ${SERVER_ROLES.join(', ')}, got "${roleRaw}"`);
  else if (role !== 'all' && databaseUrl === null)
    problems.push(
      `role ${role} needs VESTA_DATABASE_URL (PostgreSQL): the embedded SQLite file and its job queue serve one process, role all (docs/deploy.md)`,
    );
  const databasePoolSize = int('VESTA_DATABASE_POOL_SIZE', 10, 1, 1000);

  let publicUrl = str('VESTA_PUBLIC_URL') ?? null;
  if (publicUrl !== null)
    try {
      const u = new URL(publicUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        problems.push(`VESTA_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);
      publicUrl = publicUrl.replace(/\/+$/, '');
    } catch {
      problems.push(`VESTA_PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
    }
  const allowedHosts = (str('VESTA_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  for (const name of allowedHosts)
    if (!HOST_NAME.test(name))
      problems.push(
        `VESTA_ALLOWED_HOSTS entry "${name}" must be a bare host name or address (no scheme, port or path), such as vesta.lan or 192.168.1.20`,
      );

  const blobStore = parseBlobStore(str, problems);

  const uploadMaxBytes = int('VESTA_UPLOAD_MAX_BYTES', 1024 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024);
  const uploadUrlTtlSeconds = int('VESTA_UPLOAD_URL_TTL_SECONDS', 900, 10, 7 * 24 * 3600);
  const bodyLimitBytes = int('VESTA_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024);
  const jsonMaxDepth = int('VESTA_JSON_MAX_DEPTH', 32, 2, 1000);

  const corsRaw = str('VESTA_CORS_ORIGINS') ?? '*';
  const corsOrigins = corsRaw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const origin of corsOrigins) {
    if (origin === '*') continue;
    try {
      const u = new URL(origin);
      if (u.origin !== origin)
        problems.push(
          `VESTA_CORS_ORIGINS entry "${origin}" must be a bare origin such as https://app.example.com`,
        );
    } catch {
      problems.push(`VESTA_CORS_ORIGINS entry "${origin}" is not a URL origin (or "*")`);
    }
  }

  const logLevelRaw = (str('VESTA_LOG_LEVEL') ?? 'info').toLowerCase();
  const logLevel = LOG_LEVELS.find((l) => l === logLevelRaw);
  if (!logLevel)
    problems.push(`VESTA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevelRaw}"`);

  const engine: EngineConfig = {
    threads: optionalInt('VESTA_ENGINE_THREADS', 1, 256),
    maxDurationSeconds: optionalInt('VESTA_ENGINE_MAX_DURATION_SECONDS', 1, 24 * 3600),
    maxFrames: optionalInt('VESTA_ENGINE_MAX_FRAMES', 1, 10_000_000),
    maxWidth: optionalInt('VESTA_ENGINE_MAX_WIDTH', 16, 65536),
    maxHeight: optionalInt('VESTA_ENGINE_MAX_HEIGHT', 16, 65536),
    maxDecodedPixels: optionalInt('VESTA_ENGINE_MAX_DECODED_PIXELS', 1_000_000, 1e15),
    clipBudgetBaseSeconds: optionalInt('VESTA_CLIP_BUDGET_BASE_SECONDS', 1, 7 * 24 * 3600),
    clipBudgetSecondsPerClipSecond: optionalInt('VESTA_CLIP_BUDGET_SECONDS_PER_CLIP_SECOND', 1, 3600),
  };
  let models: ModelStoreOptions | undefined;
  try {
    models = modelStoreOptionsFromEnv(env);
  } catch (err) {
    problems.push(`VESTA_MODELS_MANIFEST: ${err instanceof Error ? err.message : String(err)}`);
  }
  const inference = inferenceOptionsFromEnv(env);
  try {
    resolveInference(inference);
  } catch (err) {
    problems.push(
      `model inference settings (VESTA_EP, VESTA_PRECISION, VESTA_INFERENCE_BATCH, VESTA_INFERENCE_THREADS): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const jobConcurrency = int('VESTA_JOB_CONCURRENCY', 1, 1, 64);
  const jobLeaseSeconds = int('VESTA_JOB_LEASE_SECONDS', 30, 1, 3600);
  const shutdownGraceSeconds = int('VESTA_SHUTDOWN_GRACE_SECONDS', 30, 0, 3600);
  const runnerLeaseSeconds = int('VESTA_RUNNER_LEASE_SECONDS', 60, 1, 3600);
  const runnerMaxAttempts = int('VESTA_RUNNER_MAX_ATTEMPTS', 3, 1, 20);
  const sessionIdleMinutes = int('VESTA_SESSION_IDLE_MINUTES', 720, 1, 30 * 24 * 60);
  const sessionMaxHours = int('VESTA_SESSION_MAX_HOURS', 168, 1, 365 * 24);
  const inviteTtlHours = int('VESTA_INVITE_TTL_HOURS', 72, 1, 30 * 24);
  const rateLimit = (name: string): RateLimitRule | null => {
    const raw = str(name);
    if (raw === undefined || raw === 'off' || raw === '0') return null;
    const m = /^(\d+)\s*\/\s*(\d+)\s*(s|m|h|d)?$/i.exec(raw);
    const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[(m?.[3] ?? 's').toLowerCase() as 's'];
    const quota = Number(m?.[1]);
    const windowSeconds = Number(m?.[2]) * unit;
    if (!m || quota < 1 || quota > 1_000_000 || windowSeconds < 1 || windowSeconds > 86_400) {
      problems.push(
        `${name} must be <requests>/<window> such as 600/60 or 600/1m (1 to 1000000 requests, a window of 1 s to 1 d), or off; got "${raw}"`,
      );
      return null;
    }
    if (windowSeconds * 1000 < quota) {
      problems.push(`${name}: at most 1000 requests a second can be expressed, got "${raw}"`);
      return null;
    }
    return { quota, windowSeconds };
  };
  const rateLimits: RateLimitConfig = {
    perKey: rateLimit('VESTA_RATE_LIMIT_PER_KEY'),
    perIp: rateLimit('VESTA_RATE_LIMIT_PER_IP'),
  };

  if (problems.length > 0 || models === undefined) throw new ConfigError(problems);
  return {
    role: role ?? 'all',
    port,
    host,
    dataDir,
    databaseUrl,
    databasePoolSize,
    blobStore,
    publicUrl,
    allowedHosts,
    uploadMaxBytes,
    uploadUrlTtlSeconds,
    bodyLimitBytes,
    jsonMaxDepth,
    corsOrigins,
    logLevel: logLevel ?? 'info',
    engine,
    models,
    inference,
    jobConcurrency,
    jobLeaseSeconds,
    shutdownGraceSeconds,
    runnerLeaseSeconds,
    runnerMaxAttempts,
    sessionIdleMinutes,
    sessionMaxHours,
    inviteTtlHours,
    rateLimits,
  };
}

function parseBlobStore(str: (name: string) => string | undefined, problems: string[]): BlobStoreConfig {
  const kind = (str('VESTA_BLOB_STORE') ?? 'local').toLowerCase();
  if (kind === 'local') return { kind: 'local' };
  if (kind !== 's3') {
    problems.push(`VESTA_BLOB_STORE must be local or s3, got "${kind}"`);
    return { kind: 'local' };
  }
  const bucket = str('VESTA_S3_BUCKET') ?? '';
  if (bucket === '') problems.push('VESTA_S3_BUCKET is required when VESTA_BLOB_STORE=s3');
  else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    problems.push(
      `VESTA_S3_BUCKET must be a valid bucket name (3-63 of a-z, 0-9, ".", "-"), got "${bucket}"`,
    );
  const endpoint = str('VESTA_S3_ENDPOINT') ?? null;
  if (endpoint !== null) {
    let ok = false;
    try {
      const u = new URL(endpoint);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
    } catch {
      ok = false;
    }
    // Not echoed: a mistyped URL might carry credentials.
    if (!ok) problems.push('VESTA_S3_ENDPOINT must be an http(s) URL without credentials in it');
  }
  const region = str('VESTA_S3_REGION') ?? str('AWS_REGION') ?? 'us-east-1';
  const pathStyleRaw = str('VESTA_S3_FORCE_PATH_STYLE')?.toLowerCase();
  let forcePathStyle = endpoint !== null;
  if (pathStyleRaw !== undefined) {
    if (['1', 'true', 'yes'].includes(pathStyleRaw)) forcePathStyle = true;
    else if (['0', 'false', 'no'].includes(pathStyleRaw)) forcePathStyle = false;
    else problems.push(`VESTA_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyleRaw}"`);
  }
  const keyPrefix = str('VESTA_S3_KEY_PREFIX') ?? '';
  if (keyPrefix !== '' && !/^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*\/$/.test(keyPrefix))
    problems.push(`VESTA_S3_KEY_PREFIX must be folder names ending in "/", e.g. vesta/, got "${keyPrefix}"`);
  return { kind: 's3', bucket, region, endpoint, forcePathStyle, keyPrefix };
}
