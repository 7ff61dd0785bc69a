/**
 * Hot-path queries compiled once. Kysely builds and compiles a query object on every call, which
 * costs more than running a small indexed SQLite query; the few queries that run on every request
 * (API-key lookup, current-session lookup, the Bench run read) are compiled at start and run with
 * fresh parameters. On PostgreSQL they also run as named prepared statements, so the backend
 * parses and plans each once per connection instead of on every request (pg-named-statements.ts);
 * on SQLite the statement cache (statement-cache.ts) already keeps them prepared.
 */
import { CompiledQuery } from 'kysely';
import type { Compilable } from 'kysely';
import type { Db } from './connection.js';
import { namedStatementsOf } from './pg-named-statements.js';

/**
 * Compiles `query` (built with placeholder values, one per parameter, in order) and returns a
 * function that runs the same SQL with other parameter values.
 */
export function preparedQuery<Row>(
  db: Db,
  query: Compilable<Row>,
  parameterCount: number,
): (...params: unknown[]) => Promise<Row[]> {
  const { sql, parameters } = query.compile();
  if (parameters.length !== parameterCount)
    throw new Error(
      `prepared query expects ${parameterCount} parameters, its SQL has ${parameters.length}: ${sql}`,
    );
  namedStatementsOf(db)?.add(sql);
  return async (...params: unknown[]) => {
    if (params.length !== parameterCount)
      throw new RangeError(`expected ${parameterCount} parameters, got ${params.length}`);
    return (await db.executeQuery<Row>(CompiledQuery.raw(sql, params))).rows;
  };
}
