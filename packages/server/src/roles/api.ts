/**
 * Role `api`: serves the HTTP API (and the dashboard and docs) and enqueues scoring jobs, but runs
 * no jobs and no periodic duties — the workers do. Any number of api processes share one
 * PostgreSQL database; what one process knows that the others must (task wake-ups for runner
 * long-polls, revoked API keys) travels by ClusterEvents.
 */
import { buildApp } from '../app.js';
import type { ServerConfig } from '../config.js';
import { openCore, runProcess } from './core.js';
import type { Core, RunningServer, StartOptions } from './core.js';

/**
 * At start of role `all`: uploads cut off by this installation's last stop may be sent again (on
 * PostgreSQL only those of processes that are gone). Role `api` releases nothing at start: each
 * claim names its process, and a PUT retried through any api process takes over the claim of a
 * process that is gone (the workers' sweep releases the rest).
 */
export async function releaseInterruptedUploads(core: Core): Promise<void> {
  await core.deps.services.uploadReceiver.releaseInterruptedUploads();
}

/** Runs role `api` from a parsed config. */
export async function startApi(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const core = await openCore(config, options);
  const app = await buildApp(core.deps, options);
  return runProcess(core, app, [], options);
}
