/**
 * Which database the server tests run on. The vitest project `postgres` sets
 * VESTA_TEST_DB=postgres: every server a test starts then gets its own PostgreSQL schema in the
 * `test` database (VESTA_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/test), named
 * after its data directory so that a restart on the same directory finds its data again. The
 * default project runs the same tests on the embedded SQLite file.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/db/connection.js';

export type TestDialect = 'sqlite' | 'postgres';

export const TEST_DIALECT: TestDialect = process.env.VESTA_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export const TEST_PG_URL = process.env.VESTA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The schema a data directory's database lives in on PostgreSQL. */
export function schemaFor(key: string): string {
  return `t_${createHash('sha1').update(key).digest('hex').slice(0, 20)}`;
}

/** `base` with its connections' search_path set to `schema`. */
export function urlWithSchema(base: string, schema: string): string {
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The PostgreSQL URL of the schema that belongs to `key` (created when missing), or null on the
 * SQLite project.
 */
export async function testDatabaseUrl(
  key: string,
  dialect: TestDialect = TEST_DIALECT,
): Promise<string | null> {
  if (dialect === 'sqlite') return null;
  const schema = schemaFor(key);
  await admin((c) => c.query(`create schema if not exists ${schema}`));
  return urlWithSchema(TEST_PG_URL, schema);
}

/** Drops the schema of `key` and its job engine's (PostgreSQL project only). */
export async function dropTestDatabase(key: string, dialect: TestDialect = TEST_DIALECT): Promise<void> {
  if (dialect === 'sqlite') return;
  await admin((c) =>
    c.query(
      `drop schema if exists ${schemaFor(key)} cascade; drop schema if exists ${schemaFor(key)}_pgboss cascade`,
    ),
  );
}

/** The database target of a data directory on the project's dialect. */
export async function testDatabaseTarget(
  dataDir: string,
  dialect: TestDialect = TEST_DIALECT,
): Promise<DatabaseTarget> {
  return { dataDir, databaseUrl: await testDatabaseUrl(dataDir, dialect), poolSize: 5 };
}

/** Environment for loadConfig: VESTA_DATABASE_URL on the PostgreSQL project, nothing on SQLite. */
export async function testDatabaseEnv(dataDir: string): Promise<Record<string, string>> {
  const url = await testDatabaseUrl(dataDir);
  return url === null ? {} : { VESTA_DATABASE_URL: url, VESTA_DATABASE_POOL_SIZE: '5' };
}
