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

/** At start: uploads cut off by this installation's last stop may be sent again (SQLite only; see below). */
export async function prepareApi(core: Core): Promise<void> {
  // A PUT that was streaming when the process stopped left its video marked as uploading. With one
  // process (the embedded SQLite file) none can be streaming now; with several api processes on
  // PostgreSQL another process may be streaming one, so nothing is released here.
  if (core.opened.dialect === 'sqlite') await core.deps.services.uploads.releaseInterruptedUploads();
}

/** Runs role `api` from a parsed config. */
export async function startApi(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const core = await openCore(config, options);
  await prepareApi(core);
  const app = await buildApp(core.deps, options);
  return runProcess(core, app, [], options);
}
