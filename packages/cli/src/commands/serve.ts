/**
 * `vesta serve`: runs the Vesta service, configured from the environment (PORT, HOST,
 * VESTA_DATA_DIR, …; see docs/api.md). `--role` (env VESTA_ROLE) picks what this process does:
 * `all` (default: api + worker in one process), `api` or `worker` (several processes on one
 * PostgreSQL database; docs/deploy.md). SIGTERM/SIGINT shut it down gracefully. Bad configuration
 * exits with code 78 and one message listing every problem.
 */
import type { Command } from 'commander';
import { runMain } from '@vesta/server';
import { processHost } from './host.js';
import type { CommandHost } from './host.js';
import { startBanner } from './serve-banner.js';

export const EXIT_CONFIG = 78;

export function registerServeCommand(program: Command, host: CommandHost = processHost()): void {
  program
    .command('serve')
    .description(
      'Run the Vesta service on this machine (API + worker, or one role of a cluster); configured by environment variables',
    )
    .option(
      '--role <role>',
      'all: API + scoring worker in one process; api: HTTP API only; worker: jobs only, with /healthz, /readyz, /metrics (env VESTA_ROLE, default all; api and worker need VESTA_DATABASE_URL)',
    )
    .option('--port <port>', 'port to listen on (env PORT, default 8080)')
    .option('--host <host>', 'address to bind (env HOST, default 0.0.0.0)')
    .option(
      '--data-dir <dir>',
      'data directory: SQLite file, blobs, upload-signing secret (env VESTA_DATA_DIR, default ./.vesta)',
    )
    .addHelpText(
      'after',
      '\nEnvironment: PORT, HOST, VESTA_ROLE, VESTA_DATA_DIR, VESTA_DATABASE_URL, VESTA_PUBLIC_URL, VESTA_ALLOWED_HOSTS, VESTA_UPLOAD_MAX_BYTES, VESTA_UPLOAD_URL_TTL_SECONDS,\nVESTA_BODY_LIMIT_BYTES, VESTA_JSON_MAX_DEPTH, VESTA_CORS_ORIGINS, VESTA_LOG_LEVEL, VESTA_ENGINE_THREADS, VESTA_JOB_CONCURRENCY,\nVESTA_SHUTDOWN_GRACE_SECONDS, VESTA_RUNNER_LEASE_SECONDS, VESTA_RUNNER_MAX_ATTEMPTS (docs/api.md lists them all).\n\nExamples:\n  $ PORT=9090 VESTA_DATA_DIR=/var/lib/vesta vesta serve\n  $ VESTA_DATABASE_URL=postgres://vesta@db/vesta vesta serve --role api       # docs/deploy.md\n  $ VESTA_DATABASE_URL=postgres://vesta@db/vesta PORT=9100 vesta serve --role worker\n',
    )
    .action(async (opts: { port?: string; host?: string; dataDir?: string; role?: string }) => {
      const env = { ...host.io.env };
      if (opts.role !== undefined) env.VESTA_ROLE = opts.role;
      if (opts.port !== undefined) env.PORT = opts.port;
      if (opts.host !== undefined) env.HOST = opts.host;
      if (opts.dataDir !== undefined) env.VESTA_DATA_DIR = opts.dataDir;
      const server = await runMain({
        env,
        stderr: { write: (s: string) => host.io.stderr.write(s) } as NodeJS.WritableStream,
      });
      if (!server) {
        host.exitCode = EXIT_CONFIG;
        return;
      }
      if ((host.io.stderr as { isTTY?: boolean }).isTTY === true && server.url !== null) {
        const config = server.deps.config;
        const setupRequired =
          config.role === 'worker'
            ? null
            : await server.deps.services.accounts.setupRequired().catch(() => null);
        host.io.stderr.write(
          startBanner({
            role: config.role,
            // Unset, the service answers under any name of this machine: localhost is one.
            publicUrl: config.publicUrl ?? `http://localhost:${config.port}`,
            dataDir: config.dataDir,
            postgres: config.databaseUrl !== null,
            s3Bucket: config.blobStore.kind === 's3' ? config.blobStore.bucket : null,
            setupRequired,
          }) + '\n',
        );
      }
    });
}
