/**
 * Prepared-statement reuse for better-sqlite3 under Kysely. Kysely's SQLite driver prepares every
 * query it runs; preparing costs more than running a small indexed query, so the database handed
 * to Kysely keeps the most recently used statements by SQL text (bounded, least recently used
 * evicted). Reuse is safe: Kysely runs one query at a time on its single connection.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function withStatementCache(db: BetterSqlite3.Database, maxStatements = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      const hit = cache.get(sql);
      if (hit) {
        // Refresh its position: Map iteration order is insertion order.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const statement = db.prepare(sql) as unknown as SqliteStatement;
      cache.set(sql, statement);
      if (cache.size > maxStatements) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
      return statement;
    },
  };
}
