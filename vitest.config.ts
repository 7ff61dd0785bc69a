import net from 'node:net';
import { defineConfig } from 'vitest/config';
import type { UserConfig } from 'vitest/config';

/**
 * Two projects: `sqlite` runs every test on the embedded defaults; `postgres` runs the server
 * tests that touch the database again with VESTA_TEST_DB=postgres (each server, or test, its own
 * schema in the `test` database on 127.0.0.1:5432, or VESTA_TEST_PG_URL). Locally, with no
 * PostgreSQL reachable, the second project is left out with a loud warning; under CI=true it runs
 * regardless and fails.
 */
const PG_URL = new URL(process.env.VESTA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/** Server test files that never open a database, or test nothing database-specific (run once, on SQLite). */
const NO_DATABASE = [
  'packages/server/test/config.test.ts',
  'packages/server/test/db-driver.test.ts',
  'packages/server/test/bench-state.test.ts',
  'packages/server/test/openapi.test.ts',
  'packages/server/test/docs-site.test.ts',
  'packages/server/test/docs-site-agent-recipe.test.ts',
  'packages/server/test/request-log.test.ts',
  // The blob store's failure path; nothing in it differs by database, and its race between the
  // 503 and the client's unsent body is timing-dependent.
  'packages/server/test/upload-storage-failure.test.ts',
  // The BlobStore contract (local directory and S3): no database in it.
  'packages/server/test/blob-store-contract.test.ts',
  // The statistics of human judgement: pure functions on votes.
  'packages/server/test/judging-statistics.test.ts',
];

/**
 * Server test files about PostgreSQL alone (the job engine as a cluster; topologies that bring up
 * PostgreSQL servers of their own): not run on SQLite.
 */
const POSTGRES_ONLY = [
  'packages/server/test/job-engine-cluster.test.ts',
  'packages/server/test/cluster-e2e.test.ts',
  'packages/server/test/idempotency-outage.test.ts',
  'packages/server/test/pg-named-statements.test.ts',
];

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export default defineConfig(async (): Promise<UserConfig> => {
  const pgUp = await reachable(PG_URL.hostname, Number(PG_URL.port || 5432));
  const withPostgres = pgUp || process.env.CI === 'true';
  if (!withPostgres)
    console.warn(
      `\n*** PostgreSQL is not reachable at ${PG_URL.host}: the server tests run on SQLite only. ***\n` +
        '*** Start it (see .ci/run) to run them on PostgreSQL too; under CI=true this fails.   ***\n',
    );
  return {
    test: {
      pool: 'forks',
      testTimeout: 60_000,
      hookTimeout: 60_000,
      reporters: ['default'],
      projects: [
        {
          extends: true as const,
          test: {
            name: 'sqlite',
            include: ['packages/*/test/**/*.test.ts'],
            exclude: POSTGRES_ONLY,
            env: { VESTA_TEST_DB: 'sqlite' },
          },
        },
        ...(withPostgres
          ? [
              {
                extends: true as const,
                test: {
                  name: 'postgres',
                  include: ['packages/server/test/**/*.test.ts'],
                  exclude: NO_DATABASE,
                  env: { VESTA_TEST_DB: 'postgres' },
                },
              },
            ]
          : []),
      ],
    },
  };
});
