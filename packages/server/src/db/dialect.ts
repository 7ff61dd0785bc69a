/** Which database a Kysely instance talks to (the few migrations that must differ ask this). */
import { PostgresAdapter } from 'kysely';
import type { Kysely } from 'kysely';

export type DatabaseDialect = 'sqlite' | 'postgres';

export function dialectOf<DB>(db: Kysely<DB>): DatabaseDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
