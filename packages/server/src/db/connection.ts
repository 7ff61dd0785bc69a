/**
 * Opens the embedded database (a better-sqlite3 file in WAL mode) behind Kysely and brings its
 * schema up to date with the migrations in code.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator } from 'kysely';
import type { MigrationProvider, Migration } from 'kysely';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';
import { FairSqliteDialect } from './fair-sqlite-dialect.js';
import { withStatementCache } from './statement-cache.js';

export type Db = Kysely<Database>;

export interface OpenedDatabase {
  db: Db;
  /** Cheap liveness probe for /readyz. */
  ping(): void;
  close(): Promise<void>;
}

/** Opens (creating if needed) `<dataDir>/vesta.sqlite` and runs pending migrations. */
export async function openDatabase(dataDir: string): Promise<OpenedDatabase> {
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
  await migrateToLatest(db);
  const ping = sqlite.prepare('select 1');
  return {
    db,
    ping: () => {
      ping.get();
    },
    close: () => db.destroy(),
  };
}

class CodeMigrationProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(Object.fromEntries(MIGRATIONS.map((m) => [m.name, m.migration])));
  }
}

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: new CodeMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}
