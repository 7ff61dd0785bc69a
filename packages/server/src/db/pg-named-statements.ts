/**
 * Named prepared statements on PostgreSQL for the hot queries (the few that run on every request,
 * compiled once by `preparedQuery`). Kysely's PostgreSQL driver sends every query unnamed
 * (`client.query(sql, params)`), so the backend parses and plans it again each time; a named
 * statement is parsed and planned once per connection, and each later run sends only Bind/Execute.
 *
 * The pool handed to Kysely is wrapped: a query whose SQL text is registered here runs as
 * `client.query({ name, text, values })`; every other query is passed on unchanged. The name is
 * derived from the text, so one text has one name on every connection, and the registry is only
 * ever added to (a handful of statements per process).
 *
 * A named statement's result columns are fixed when it is prepared. Should the table change under
 * it (a newer version's migration adding a column while this process serves: `select *` then
 * answers "cached plan must not change result type"), the query is run again unnamed on the same
 * connection and that connection is closed on release, so the pool replaces it with one that
 * prepares the statement afresh. Inside a transaction the retry cannot help (the error already
 * aborted it) and the caller sees the error, as it would any failed statement.
 */
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { Pool, PoolClient, QueryResult } from 'pg';

/** SQL texts to run as named prepared statements, with their names. */
export class NamedStatements {
  private readonly names = new Map<string, string>();

  /** Registers `sql`; returns its statement name. */
  add(sql: string): string {
    let name = this.names.get(sql);
    if (name === undefined) {
      name = `vesta_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  nameOf(sql: string): string | undefined {
    return this.names.get(sql);
  }

  get size(): number {
    return this.names.size;
  }
}

const registries = new WeakMap<object, NamedStatements>();

/** Ties `statements` to the Kysely instance whose pool runs them (at open). */
export function attachNamedStatements(db: object, statements: NamedStatements): void {
  registries.set(db, statements);
}

/** The registry of a PostgreSQL database opened by `openDatabase`; undefined on SQLite. */
export function namedStatementsOf(db: object): NamedStatements | undefined {
  return registries.get(db);
}

/** PostgreSQL's answer when a prepared statement's result columns changed since it was prepared. */
export function isResultTypeChange(e: unknown): boolean {
  return (
    e instanceof Error &&
    (e as { code?: unknown }).code === '0A000' &&
    e.message.includes('cached plan must not change result type')
  );
}

/** A pooled client as Kysely sees it; one per `pg` client, so Kysely's per-client cache holds. */
class NamingClient {
  /** Set when a named statement went stale here: the connection is closed on release. */
  private stale = false;

  constructor(
    private readonly client: PoolClient,
    private readonly statements: NamedStatements,
  ) {}

  async query(sql: string, parameters: ReadonlyArray<unknown>): Promise<QueryResult> {
    const name = this.statements.nameOf(sql);
    if (name === undefined || this.stale) return this.client.query(sql, parameters as unknown[]);
    try {
      return await this.client.query({ name, text: sql, values: parameters as unknown[] });
    } catch (e) {
      if (!isResultTypeChange(e)) throw e;
      this.stale = true;
      return this.client.query(sql, parameters as unknown[]);
    }
  }

  release(): void {
    // `release(true)` closes the connection instead of returning it to the pool.
    this.client.release(this.stale ? true : undefined);
  }
}

/** `pool` for Kysely's PostgresDialect, running the registered statements by name. */
export function namingPool(pool: Pool, statements: NamedStatements): PostgresPool {
  const wrapped = new WeakMap<PoolClient, NamingClient>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let naming = wrapped.get(client);
      if (!naming) {
        naming = new NamingClient(client, statements);
        wrapped.set(client, naming);
      }
      return naming as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
