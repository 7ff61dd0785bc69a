/**
 * What every role builds from a parsed config: the database, the blob store, the job queue, the
 * engine, the cluster events and the services (`openCore`), and the process around an HTTP app
 * (`runProcess`: listen, graceful close). The role files (api.ts, worker.ts, all.ts) compose these
 * parts; nothing here is created at import time.
 */
import { createEngine, createModelStore } from '@vesta/engine';
import type { CreateEngineOptions, Engine } from '@vesta/engine';
import type { App, BuildAppOptions } from '../app.js';
import type { ServerConfig } from '../config.js';
import { createBlobStore as createConfiguredBlobStore } from '../adapters/blob-store/index.js';
import { InProcessClusterEvents } from '../adapters/cluster-events/in-process.js';
import { PostgresClusterEvents } from '../adapters/cluster-events/postgres.js';
import { openJobQueue } from '../adapters/job-queue/factory.js';
import { PostgresProcessLiveness } from '../adapters/process-liveness/postgres.js';
import { openDatabase } from '../db/connection.js';
import type { OpenedDatabase } from '../db/connection.js';
import type { AppDeps } from '../http/app-deps.js';
import { registerJobQueueMetrics } from '../http/metrics.js';
import { checkReadiness } from '../http/readiness.js';
import type { JobDefinition } from '../jobs/catalogue.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ClusterEvents } from '../ports/cluster-events.js';
import type { JobQueue } from '../ports/job-queue.js';
import { SINGLE_PROCESS } from '../ports/process-liveness.js';
import type { ProcessLiveness } from '../ports/process-liveness.js';
import { Repositories } from '../repositories/index.js';
import { AccountService } from '../services/account.service.js';
import { ApiKeyService } from '../services/api-key.service.js';
import { createBenchArea } from '../services/bench-area.js';
import { SessionService } from '../services/session.service.js';
import { UploadReceiverService } from '../services/upload-receiver.service.js';
import { UploadService } from '../services/upload.service.js';
import { loadUploadSigningSecret, UploadTokenSigner } from '../services/upload-token.js';
import { UserAdminService } from '../services/user-admin.service.js';
import { JudgingService } from '../services/judging.service.js';
import { VideoService } from '../services/video.service.js';
import { ClipEvaluationService } from '../services/clip-evaluation.service.js';
import { ClipIntakeService } from '../services/clip-intake.service.js';

export type EngineFactory = (options: CreateEngineOptions) => Engine;

export interface StartOptions extends BuildAppOptions {
  /** Builds the engine from the config's engine options (default: `@vesta/engine`'s createEngine). */
  createEngine?: EngineFactory;
  /** false: build everything but do not listen (tests use `app.inject`). Default true. */
  listen?: boolean;
  /** Role `all` only — false: do not start the worker (no jobs are claimed). Default true. */
  worker?: boolean;
  /** Extra job definitions (beyond the core catalogue). */
  jobs?: ReadonlyArray<JobDefinition<unknown>>;
  /** Job-queue timings (tests shorten them) and claim order (`bench:fairness` compares both). */
  queue?: { leaseMs?: number; pollMs?: number; claimOrder?: 'fair' | 'fifo' };
}

export interface RunningServer {
  app: App;
  deps: AppDeps;
  /** The base URL it listens on (null when not listening). */
  url: string | null;
  /** Graceful shutdown: in-flight requests finish, no new jobs are claimed, cut-off jobs resume after restart. */
  close(): Promise<void>;
}

export function engineOptionsFrom(config: ServerConfig): CreateEngineOptions {
  const limits: NonNullable<CreateEngineOptions['limits']> = { maxFileBytes: config.uploadMaxBytes };
  if (config.engine.maxDurationSeconds !== null) limits.maxDurationSeconds = config.engine.maxDurationSeconds;
  if (config.engine.maxFrames !== null) limits.maxFrames = config.engine.maxFrames;
  if (config.engine.maxWidth !== null) limits.maxWidth = config.engine.maxWidth;
  if (config.engine.maxHeight !== null) limits.maxHeight = config.engine.maxHeight;
  if (config.engine.maxDecodedPixels !== null) limits.maxDecodedPixels = config.engine.maxDecodedPixels;
  if (config.engine.clipBudgetBaseSeconds !== null)
    limits.clipBudgetBaseSeconds = config.engine.clipBudgetBaseSeconds;
  if (config.engine.clipBudgetSecondsPerClipSecond !== null)
    limits.clipBudgetSecondsPerClipSecond = config.engine.clipBudgetSecondsPerClipSecond;
  return {
    limits,
    ...(config.engine.threads === null ? {} : { threads: config.engine.threads }),
    models: createModelStore(config.models),
    inference: config.inference,
  };
}

/**
 * The blob store of the config: the embedded default `<dataDir>/blobs` (upload URLs to our own
 * signed PUT route), or an S3-compatible bucket (presigned PUTs) with VESTA_BLOB_STORE=s3.
 */
export function createBlobStore(
  config: ServerConfig,
  signer: UploadTokenSigner,
): Promise<BlobStore & { close?(): void }> {
  return createConfiguredBlobStore(config, signer);
}

/**
 * The job queue of the database: the embedded queue (the `jobs` table) on the SQLite file, the job
 * engine (pg-boss with Vesta's fair claim and leases) on PostgreSQL. Claims only once started.
 */
export function createJobQueue(
  config: ServerConfig,
  opened: OpenedDatabase,
  options: StartOptions,
): Promise<JobQueue> {
  return openJobQueue(opened, {
    concurrency: config.jobConcurrency,
    databaseUrl: config.databaseUrl,
    leaseMs: config.jobLeaseSeconds * 1000,
    ...options.queue,
  });
}

/** Messages between processes: PostgreSQL LISTEN/NOTIFY, or none for the one-process SQLite file. */
export async function createClusterEvents(
  config: ServerConfig,
  opened: OpenedDatabase,
): Promise<ClusterEvents> {
  if (opened.dialect !== 'postgres' || config.databaseUrl === null) return new InProcessClusterEvents();
  return PostgresClusterEvents.open(config.databaseUrl, opened.db);
}

/**
 * Which processes are alive, for upload claims: a session-level advisory lock per process on
 * PostgreSQL (released by PostgreSQL when the process dies), nothing on the one-process SQLite file.
 */
export async function createProcessLiveness(
  config: ServerConfig,
  opened: OpenedDatabase,
): Promise<ProcessLiveness> {
  if (opened.dialect !== 'postgres' || config.databaseUrl === null) return SINGLE_PROCESS;
  return PostgresProcessLiveness.open(config.databaseUrl, opened.db);
}

export interface Core {
  config: ServerConfig;
  deps: AppDeps;
  events: ClusterEvents;
  liveness: ProcessLiveness;
  opened: OpenedDatabase;
  /** Closes what `openCore` opened (after the HTTP app and the worker stopped). */
  close(log: App['log']): Promise<void>;
}

/** Opens the database (migrating it), the stores and the engine, and builds the services. */
export async function openCore(config: ServerConfig, options: StartOptions = {}): Promise<Core> {
  const opened = await openDatabase({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
  });
  const { db } = opened;
  const events = await createClusterEvents(config, opened);
  const liveness = await createProcessLiveness(config, opened);
  const engine = (options.createEngine ?? createEngine)(engineOptionsFrom(config));
  const repos = new Repositories(db);
  // Embedded: a file in the data directory. PostgreSQL: in the database, shared by every process.
  const signer = new UploadTokenSigner(await loadUploadSigningSecret(config, repos));
  const blobs = await createBlobStore(config, signer);
  const jobs = await createJobQueue(config, opened, options);

  const videos = new VideoService(repos, blobs, () => engine.dimensions());
  const intake = new ClipIntakeService(repos, blobs, jobs, engine);
  const uploads = new UploadService(repos, blobs, intake, videos, {
    uploadMaxBytes: config.uploadMaxBytes,
    uploadUrlTtlSeconds: config.uploadUrlTtlSeconds,
  });
  const uploadReceiver = new UploadReceiverService(repos, blobs, signer, Date.now, liveness);
  const bench = createBenchArea({
    repos,
    blobs,
    jobs,
    uploads,
    intake,
    videos,
    dimensions: () => engine.dimensions(),
    leaseSeconds: config.runnerLeaseSeconds,
    maxAttempts: config.runnerMaxAttempts,
    events,
  });
  const apiKeys = new ApiKeyService(repos, Date.now, { events });
  const accounts = new AccountService(repos, {
    webSessionIdleMs: config.sessionIdleMinutes * 60_000,
    webSessionMaxMs: config.sessionMaxHours * 3600_000,
  });
  const users = new UserAdminService(repos, apiKeys, { inviteTtlMs: config.inviteTtlHours * 3600_000 });
  const judging = new JudgingService(repos, {
    isAdmin: async (userId) => (await repos.users.account(userId)).role === 'admin',
    invite: async (adminId, email) => {
      const { invite, token } = await users.createInvite(adminId, { email });
      return { token, expiresAt: invite.expiresAt };
    },
    hasPendingInvite: async (email) => {
      const t = Date.now();
      return (await repos.users.invites()).some(
        (i) => i.email === email && i.used_at === null && i.revoked_at === null && Number(i.expires_at) > t,
      );
    },
  });
  const deps: AppDeps = {
    config,
    repos,
    db,
    blobs,
    jobs,
    engine,
    services: {
      apiKeys,
      accounts,
      users,
      videos,
      sessions: new SessionService(repos, blobs, jobs, videos),
      uploads,
      uploadReceiver,
      intake,
      // A settled clip that ended its Bench run: the run's scorecard is stored.
      evaluations: new ClipEvaluationService(repos, blobs, engine, (runId) =>
        bench.scorecards.runEnded(runId),
      ),
      judging,
    },
    bench,
    readiness: [
      { name: 'database', check: () => opened.ping() },
      { name: 'blobs', check: () => blobs.checkReady() },
      { name: 'queue', check: () => jobs.checkReady() },
      { name: 'engine', check: () => engine.checkReady() },
    ],
  };
  return {
    config,
    deps,
    events,
    liveness,
    opened,
    async close(log) {
      // The queue's connections and periodic duties (a worker stopped its jobs before this).
      await jobs.stop(0);
      await engine.close();
      blobs.close?.();
      await apiKeys.close().catch((e: unknown) => log.warn({ err: e }, 'writing key last-used times failed'));
      await events.close();
      // Last but the pool: this process's uploads count as its own until here.
      await liveness.close();
      await opened.close();
    },
  };
}

/** Something the process runs besides its HTTP app (the worker): stopped before the app closes. */
export interface Duty {
  /** Stops starting work; waits up to `graceMs` for work in flight, then cuts it off. */
  stop(graceMs: number): Promise<void>;
}

/** Listens (unless told not to) and wires the graceful close of app, duties and core. */
export async function runProcess(
  core: Core,
  app: App,
  duties: readonly Duty[],
  options: StartOptions,
): Promise<RunningServer> {
  const { config, deps } = core;
  registerJobQueueMetrics(app.vestaMetrics.registry, deps.jobs);
  let url: string | null = null;
  if (options.listen ?? true) {
    url = await app.listen({ port: config.port, host: config.host });
    app.log.info({ url, role: config.role, dataDir: config.dataDir }, 'vesta listening');
  }
  // Serving starts regardless (a dependency may come up later; /readyz says 503 meanwhile), but
  // what is missing is said at once, in words, rather than at the first probe.
  let closing: Promise<void> | null = null;
  void checkReadiness(deps.readiness).then(({ failures }) => {
    // A process closed meanwhile (a short-lived test server) fails its checks for that reason.
    if (closing === null)
      for (const f of failures)
        app.log.warn(
          { check: f.name, reason: f.reason },
          `not ready at start: ${f.name} unavailable: ${f.reason}`,
        );
  });
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // Long-polling runner claims answer now (204) instead of holding the close open.
      deps.bench.notifier.close();
      const graceMs = config.shutdownGraceSeconds * 1000;
      await Promise.all([app.close(), ...duties.map((d) => d.stop(graceMs))]);
      await core.close(app.log);
    })();
    return closing;
  };
  return { app, deps, url, close };
}
