/**
 * Runs the role VESTA_ROLE names (default `all`: api + worker in one process; `api`, `worker`: see
 * roles/) from the environment, with graceful shutdown on
 * SIGTERM/SIGINT: in-flight requests finish, no new jobs are claimed, cut-off jobs resume after
 * restart. Bad configuration stops the start with one message listing every problem.
 */
import { ConfigError, loadConfig } from './config.js';
import { startRole } from './roles/all.js';
import type { RunningServer } from './roles/all.js';

export interface MainOptions {
  env?: Record<string, string | undefined>;
  /** Where fatal start-up problems are written (default stderr). */
  stderr?: NodeJS.WritableStream;
}

/**
 * Starts the service and installs signal handlers; resolves once it listens. On bad configuration
 * it writes one message listing every problem and resolves null (the caller exits with 78).
 */
export async function runMain(options: MainOptions = {}): Promise<RunningServer | null> {
  const stderr = options.stderr ?? process.stderr;
  let config;
  try {
    config = loadConfig(options.env ?? process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      stderr.write(`vesta: ${e.message}\n`);
      return null;
    }
    throw e;
  }
  const server = await startRole(config);
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    server
      .close()
      .then(() => {
        process.exitCode = 0;
      })
      .catch((e: unknown) => {
        server.app.log.error({ err: e }, 'shutdown failed');
        process.exitCode = 1;
      });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  return server;
}
