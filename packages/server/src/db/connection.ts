/**
 * Opens the database behind Kysely and brings its schema up to date with the migrations in code:
 *
 * - embedded (default): a better-sqlite3 file `<dataDir>/vesta.sqlite` in WAL mode, with the
 *   SQLite-only speed-ups (first-come connection lock, prepared-statement cache);
 * - distributed (`VESTA_DATABASE_URL=postgres://…`): PostgreSQL through `pg` with a pool. `bigint`
 *   and `numeric` values (epoch-ms timestamps, counts, sums) come back as JavaScript numbers, as
 *   they do from SQLite — `pg` would return them as strings. The hot queries run as named
 *   prepared statements (parsed and planned once per connection).
 *
 * Both run the same migrations; services see one `Db` and never branch on the dialect.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import type { Driver, MigrationProvider, Migration } from 'kysely';
import { NulGuardDriver } from './nul-guard.js';
import pg from 'pg';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';
import { FairSqliteDialect } from './fair-sqlite-dialect.js';
import { withStatementCache } from './statement-cache.js';
import { NamedStatements, attachNamedStatements, namingPool } from './pg-named-statements.js';

export type Db = Kysely<Database>;

import { dialectOf } from './dialect.js';
import type { DatabaseDialect } from './dialect.js';

export type { DatabaseDialect };
export { dialectOf };

/** Where the database lives: a PostgreSQL URL, or else the SQLite file in the data directory. */
export interface DatabaseTarget {
  dataDir: string;
  databaseUrl?: string | null;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
}

export interface OpenedDatabase {
  db: Db;
  dialect: DatabaseDialect;
  /** Cheap liveness probe for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's int8 (bigint, count(*)) and numeric (sum of bigint). */
const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/**
 * Opens (creating if needed) the database and runs pending migrations. A string is a data
 * directory (the embedded SQLite file).
 */
export async function openDatabase(target: string | DatabaseTarget): Promise<OpenedDatabase> {
  const opened = connectDatabase(target);
  try {
    await migrateToLatest(opened.db);
  } catch (e) {
    await opened.close().catch(() => undefined);
    throw e;
  }
  return opened;
}

/** Connects without migrating (tests that step through the migrations use this). */
export function connectDatabase(target: string | DatabaseTarget): OpenedDatabase {
  const t: DatabaseTarget = typeof target === 'string' ? { dataDir: target } : target;
  return t.databaseUrl ? openPostgres(t.databaseUrl, t.poolSize ?? 10) : openSqlite(t.dataDir);
}

function openSqlite(dataDir: string): OpenedDatabase {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'vesta.sqlite');
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({
    dialect: new FairSqliteDialect({ database: withStatementCache(sqlite) }),
  });
  const ping = sqlite.prepare('select 1');
  return {
    db,
    dialect: 'sqlite',
    ping: () => {
      ping.get();
      return Promise.resolve();
    },
    close: () => db.destroy(),
  };
}

class GuardedPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new NulGuardDriver(super.createDriver());
  }
}

function openPostgres(connectionString: string, max: number): OpenedDatabase {
  const types = new pg.TypeOverrides();
  const toNumber = (v: string): number => Number(v);
  types.setTypeParser(PG_INT8, toNumber);
  types.setTypeParser(PG_NUMERIC, toNumber);
  const pool = new pg.Pool({ connectionString, max, types, connectionTimeoutMillis: 10_000 });
  // An idle client whose server went away (restart, failover) emits here; the pool replaces it.
  pool.on('error', () => undefined);
  // A checked-out client (between the queries of a transaction) has no listener of the pool's: its
  // server going away would be an unhandled 'error' that ends the process. Its pending or next
  // query fails instead (503 upstream_unavailable), and the pool drops it.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  // The hot queries (`preparedQuery`) run as named prepared statements (pg-named-statements.ts).
  const statements = new NamedStatements();
  const db = new Kysely<Database>({
    dialect: new GuardedPostgresDialect({ pool: namingPool(pool, statements) }),
  });
  attachNamedStatements(db, statements);
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      await pool.query('select 1');
    },
    close: () => db.destroy(),
  };
}

async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('the PostgreSQL search_path names no schema that exists');
  return schema;
}

class CodeMigrationProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(Object.fromEntries(MIGRATIONS.map((m) => [m.name, m.migration])));
  }
}

/** Kysely's Migrator over the migrations in code. */
export async function createMigrator(db: Db): Promise<Migrator> {
  return new Migrator({
    db,
    provider: new CodeMigrationProvider(),
    // Migration names are reserved ahead per change and land in any order (0012 before 0009): a
    // database that already ran a later one still gets an earlier one that arrives afterwards.
    allowUnorderedMigrations: true,
    // Kysely looks for its bookkeeping tables in every schema unless told which: a second Vesta
    // (or a test) in another schema of the same database would make it skip creating its own.
    ...(dialectOf(db) === 'postgres' ? { migrationTableSchema: await currentSchema(db) } : {}),
  });
}

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = await createMigrator(db);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}
