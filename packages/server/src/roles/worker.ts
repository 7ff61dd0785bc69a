/**
 * Role `worker`: runs the scoring jobs and the periodic duties (runner-lease reaper, expired-upload
 * sweep, idempotency-record prune; each in one process of the deployment at a time, elected by the
 * job queue) and serves only /healthz, /readyz and /metrics on PORT — no API. Any number of workers share one PostgreSQL database with the api processes.
 *
 * `startWorkerDuties` is also what role `all` runs beside its API.
 */
import { buildApp } from '../app.js';
import type { App } from '../app.js';
import type { ServerConfig } from '../config.js';
import type { RouteModule } from '../http/app-deps.js';
import { healthRoutes } from '../http/routes/ops/health.route.js';
import { buildJobHandlers } from '../jobs/catalogue.js';
import type { JobDefinition } from '../jobs/catalogue.js';
import { evaluateVideoJob } from '../jobs/evaluate-video.js';
import { openCore, runProcess } from './core.js';
import type { Core, Duty, RunningServer, StartOptions } from './core.js';

/** How often videos whose upload URL expired unused are removed. */
export const UPLOAD_SWEEP_INTERVAL_MS = 5 * 60_000;

/** The only HTTP routes of a worker: health, readiness and metrics for the orchestrator (Kubernetes, systemd, …). */
export const WORKER_ROUTES: readonly RouteModule[] = [healthRoutes];

/** Starts claiming jobs and the periodic duties; the returned duty stops them. */
export function startWorkerDuties(
  core: Core,
  log: App['log'],
  extraJobs: ReadonlyArray<JobDefinition<unknown>> = [],
): Duty {
  const { config, deps } = core;
  const { jobs, bench, repos } = deps;
  // What every job shares, as /readyz checks it: while one is down, jobs wait instead of failing.
  const shared = deps.readiness.filter((r) => r.name === 'database' || r.name === 'blobs');
  const dependencyUnavailable = async (): Promise<boolean> => {
    for (const r of shared) {
      try {
        await r.check();
      } catch {
        return true;
      }
    }
    return false;
  };
  const handlers = buildJobHandlers([
    evaluateVideoJob(deps.services.evaluations, { dependencyUnavailable }),
    ...extraJobs,
  ]);
  jobs.start(handlers, log.child({ component: 'worker' }));

  // Periodic duties: `every` runs each in one process of the deployment (the elected one on
  // PostgreSQL), soon after start and then at its interval; stopping the queue ends them.
  // Runner leases: an expired one puts its task back (or fails it after the last attempt).
  jobs.every(
    'runner-lease-reaper',
    Math.min(5000, Math.max(250, (config.runnerLeaseSeconds * 1000) / 4)),
    () => bench.reaper.reapExpiredLeases().then(() => undefined),
    log.child({ component: 'runner-lease-reaper' }),
  );
  jobs.every(
    'prune',
    3600_000,
    async () => {
      await repos.idempotency
        .pruneExpired()
        .catch((e: unknown) => log.warn({ err: e }, 'idempotency prune failed'));
      // Full buckets and forgotten sign-in counts (the shared rate_limits table).
      await repos
        .rateLimits()
        .prune()
        .catch((e: unknown) => log.warn({ err: e }, 'rate-limit prune failed'));
    },
    log,
  );
  // Videos whose upload URL expired unused leave their session, and uploads claimed by a process
  // that is gone are released (at start, then every few minutes).
  jobs.every(
    'expired-upload-sweep',
    UPLOAD_SWEEP_INTERVAL_MS,
    async () => {
      // Uploads whose PUT was cut off by a process that is gone (kill -9) become usable again.
      const released = await deps.services.uploadReceiver.releaseDeadClaims();
      if (released > 0) log.info({ released }, 'released uploads of processes that are gone');
      const n = await deps.services.uploads.sweepExpiredUploads();
      if (n > 0) log.info({ removed: n }, 'removed videos whose upload URL expired unused');
    },
    log,
  );

  return { stop: (graceMs) => jobs.stop(graceMs) };
}

/** Runs role `worker` from a parsed config. */
export async function startWorker(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const core = await openCore(config, options);
  const app = await buildApp(core.deps, { ...options, routes: WORKER_ROUTES });
  const worker = startWorkerDuties(core, app.log, options.jobs);
  return runProcess(core, app, [worker], options);
}
