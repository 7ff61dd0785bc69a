/**
 * `vesta serve`: runs the Vesta service, role `all` (api + worker in one process), configured from
 * the environment (PORT, HOST, VESTA_DATA_DIR, …; see docs/api.md). SIGTERM/SIGINT shut it down
 * gracefully. Bad configuration exits with code 78 and one message listing every problem.
 */
import type { Command } from 'commander';
import { runMain } from '@vesta/server';
import { processHost } from './host.js';
import type { CommandHost } from './host.js';

export const EXIT_CONFIG = 78;

export function registerServeCommand(program: Command, host: CommandHost = processHost()): void {
  program
    .command('serve')
    .description('Run the Vesta service (API + worker) on this machine; configured by environment variables')
    .option('--port <port>', 'port to listen on (env PORT, default 8080)')
    .option('--host <host>', 'address to bind (env HOST, default 0.0.0.0)')
    .option(
      '--data-dir <dir>',
      'data directory: SQLite file, blobs, upload-signing secret (env VESTA_DATA_DIR, default ./.vesta)',
    )
    .addHelpText(
      'after',
      '\nEnvironment: PORT, HOST, VESTA_DATA_DIR, VESTA_PUBLIC_URL, VESTA_UPLOAD_MAX_BYTES, VESTA_UPLOAD_URL_TTL_SECONDS,\nVESTA_BODY_LIMIT_BYTES, VESTA_JSON_MAX_DEPTH, VESTA_CORS_ORIGINS, VESTA_LOG_LEVEL, VESTA_ENGINE_THREADS, VESTA_JOB_CONCURRENCY,\nVESTA_SHUTDOWN_GRACE_SECONDS, VESTA_RUNNER_LEASE_SECONDS, VESTA_RUNNER_MAX_ATTEMPTS (docs/api.md lists them all).\n\nExample:\n  $ PORT=9090 VESTA_DATA_DIR=/var/lib/vesta vesta serve\n',
    )
    .action(async (opts: { port?: string; host?: string; dataDir?: string }) => {
      const env = { ...host.io.env };
      if (opts.port !== undefined) env.PORT = opts.port;
      if (opts.host !== undefined) env.HOST = opts.host;
      if (opts.dataDir !== undefined) env.VESTA_DATA_DIR = opts.dataDir;
      const server = await runMain({
        env,
        stderr: { write: (s: string) => host.io.stderr.write(s) } as NodeJS.WritableStream,
      });
      if (!server) host.exitCode = EXIT_CONFIG;
    });
}
