/**
 * Composition root of role `all`: api + worker in one process on the embedded defaults (SQLite
 * file, local blob directory, in-process job queue). Builds the object graph from a parsed config;
 * nothing here is created at import time.
 */
import path from 'node:path';
import { createEngine, createModelStore } from '@vesta/engine';
import type { CreateEngineOptions, Engine } from '@vesta/engine';
import { buildApp } from '../app.js';
import type { App, BuildAppOptions } from '../app.js';
import type { ServerConfig } from '../config.js';
import { LocalDirBlobStore } from '../adapters/blob-store/local-dir.js';
import { SqliteJobQueue } from '../adapters/job-queue/sqlite.js';
import { openDatabase } from '../db/connection.js';
import type { AppDeps } from '../http/app-deps.js';
import { pruneIdempotencyRecords } from '../http/idempotency.js';
import { RateLimitStore } from '../services/rate-limit-store.js';
import { buildJobHandlers } from '../jobs/catalogue.js';
import type { JobDefinition } from '../jobs/catalogue.js';
import { evaluateVideoJob } from '../jobs/evaluate-video.js';
import { AccountService } from '../services/account-service.js';
import { ApiKeyService } from '../services/api-key-service.js';
import { createBenchArea } from '../services/bench-area.js';
import { SessionService } from '../services/session-service.js';
import { UploadService } from '../services/upload-service.js';
import { loadUploadSigningSecret, UploadTokenSigner } from '../services/upload-token.js';
import { VideoService } from '../services/video-service.js';

/** How often videos whose upload URL expired unused are removed. */
export const UPLOAD_SWEEP_INTERVAL_MS = 5 * 60_000;

export type EngineFactory = (options: CreateEngineOptions) => Engine;

export interface StartOptions extends BuildAppOptions {
  /** Builds the engine from the config's engine options (default: `@vesta/engine`'s createEngine). */
  createEngine?: EngineFactory;
  /** false: build everything but do not listen (tests use `app.inject`). Default true. */
  listen?: boolean;
  /** false: do not start the worker (no jobs are claimed). Default true. */
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

export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const opened = await openDatabase({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
  });
  const { db } = opened;
  const blobs = new LocalDirBlobStore(path.join(config.dataDir, 'blobs'));
  await blobs.init();
  const engine = (options.createEngine ?? createEngine)(engineOptionsFrom(config));
  // Embedded: a file in the data directory. PostgreSQL: in the database, shared by every process.
  const signer = new UploadTokenSigner(await loadUploadSigningSecret(config, db));

  const jobs = new SqliteJobQueue(db, { concurrency: config.jobConcurrency, ...options.queue });

  const videos = new VideoService(db, blobs, engine);
  const uploads = new UploadService(db, blobs, jobs, engine, videos, signer, {
    publicUrl: config.publicUrl,
    uploadMaxBytes: config.uploadMaxBytes,
    uploadUrlTtlSeconds: config.uploadUrlTtlSeconds,
  });
  const bench = createBenchArea({
    db,
    blobs,
    jobs,
    uploads,
    videos,
    dimensions: () => engine.dimensions(),
    leaseSeconds: config.runnerLeaseSeconds,
    maxAttempts: config.runnerMaxAttempts,
  });
  const apiKeys = new ApiKeyService(db);
  const accounts = new AccountService(db, apiKeys, {
    sessionIdleMs: config.sessionIdleMinutes * 60_000,
    sessionMaxMs: config.sessionMaxHours * 3600_000,
    inviteTtlMs: config.inviteTtlHours * 3600_000,
  });
  const deps: AppDeps = {
    config,
    db,
    blobs,
    jobs,
    engine,
    services: {
      apiKeys,
      accounts,
      videos,
      sessions: new SessionService(db, blobs, jobs, videos),
      uploads,
    },
    bench,
    readiness: [
      { name: 'database', check: () => opened.ping() },
      { name: 'blobs', check: () => blobs.checkReady() },
      { name: 'queue', check: () => jobs.checkReady() },
      { name: 'engine', check: () => engine.checkReady() },
    ],
  };

  await deps.services.uploads.releaseInterruptedUploads();
  const app = await buildApp(deps, options);

  // A Bench clip's settled evaluation moves its task and run on.
  const handlers = buildJobHandlers([
    evaluateVideoJob(videos, { settled: (videoId) => bench.runs.clipEvaluated(videoId) }),
    ...(options.jobs ?? []),
  ]);
  let reaper: NodeJS.Timeout | null = null;
  if (options.worker ?? true) {
    jobs.start(handlers, app.log.child({ component: 'worker' }));
    // Runner leases: an expired one puts its task back (or fails it after the last attempt).
    const reaperLog = app.log.child({ component: 'runner-lease-reaper' });
    reaper = setInterval(
      () => {
        void bench.runners
          .reapExpiredLeases()
          .catch((e: unknown) => reaperLog.error({ err: e }, 'runner lease reaper failed'));
      },
      Math.min(5000, Math.max(250, (config.runnerLeaseSeconds * 1000) / 4)),
    );
    reaper.unref();
  }

  const prune = setInterval(() => {
    void pruneIdempotencyRecords(db).catch((e: unknown) =>
      app.log.warn({ err: e }, 'idempotency prune failed'),
    );
    // Full buckets and forgotten sign-in counts (the shared rate_limits table).
    void new RateLimitStore(db)
      .prune()
      .catch((e: unknown) => app.log.warn({ err: e }, 'rate-limit prune failed'));
  }, 3600_000);
  prune.unref();

  // Videos whose upload URL expired unused leave their session (at start, then every few minutes).
  const sweepUploads = (): void => {
    void deps.services.uploads
      .sweepExpiredUploads()
      .then((n) => {
        if (n > 0) app.log.info({ removed: n }, 'removed videos whose upload URL expired unused');
      })
      .catch((e: unknown) => app.log.warn({ err: e }, 'expired upload sweep failed'));
  };
  sweepUploads();
  const uploadSweep = setInterval(sweepUploads, UPLOAD_SWEEP_INTERVAL_MS);
  uploadSweep.unref();

  let url: string | null = null;
  if (options.listen ?? true) {
    url = await app.listen({ port: config.port, host: config.host });
    app.log.info({ url, dataDir: config.dataDir }, 'vesta listening');
  }

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(prune);
      clearInterval(uploadSweep);
      if (reaper) clearInterval(reaper);
      // Long-polling runner claims answer now (204) instead of holding the close open.
      bench.notifier.close();
      const graceMs = config.shutdownGraceSeconds * 1000;
      await Promise.all([app.close(), jobs.stop(graceMs)]);
      await engine.close();
      await apiKeys
        .close()
        .catch((e: unknown) => app.log.warn({ err: e }, 'writing key last-used times failed'));
      await opened.close();
    })();
    return closing;
  };
  return { app, deps, url, close };
}
