/**
 * Composition root of role `all` (the default; api + worker in one process) and the entry that
 * picks a role from the config. With no configuration this is the embedded installation: SQLite
 * file, local blob directory, in-process job queue.
 */
import { buildApp } from '../app.js';
import type { ServerConfig } from '../config.js';
import { releaseInterruptedUploads, startApi } from './api.js';
import { openCore, runProcess } from './core.js';
import type { Duty, RunningServer, StartOptions } from './core.js';
import { startWorker, startWorkerDuties } from './worker.js';

export { engineOptionsFrom } from './core.js';
export type { EngineFactory, RunningServer, StartOptions } from './core.js';
export { UPLOAD_SWEEP_INTERVAL_MS } from './worker.js';

/** Runs role `all`: the API and (unless `options.worker` is false) the worker, in this process. */
export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const core = await openCore(config, options);
  await releaseInterruptedUploads(core);
  const app = await buildApp(core.deps, options);
  const duties: Duty[] = [];
  if (options.worker ?? true) duties.push(startWorkerDuties(core, app.log, options.jobs));
  return runProcess(core, app, duties, options);
}

/** Runs the role the config names (VESTA_ROLE / `vesta serve --role`). */
export function startRole(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  switch (config.role) {
    case 'api':
      return startApi(config, options);
    case 'worker':
      return startWorker(config, options);
    case 'all':
      return startServer(config, options);
  }
}
