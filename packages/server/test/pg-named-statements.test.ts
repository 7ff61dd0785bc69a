/**
 * The hot queries on PostgreSQL run as named prepared statements (db/pg-named-statements.ts): a
 * query compiled by `preparedQuery` is prepared once per connection and run by name afterwards,
 * every other query stays unnamed, and a table changed under a prepared `select *` (a newer
 * version's migration) still answers — with the new column — instead of failing. On SQLite
 * nothing changes. A real PostgreSQL server in a schema of its own (one connection, so that the
 * checks see the statements of the connection that ran the queries).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import type { OpenedDatabase } from '../src/db/connection.js';
import { namedStatementsOf } from '../src/db/pg-named-statements.js';
import { preparedQuery } from '../src/db/prepared-query.js';
import { dropTestDatabase, testDatabaseUrl } from './helpers/test-database.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-pg-named-'));
let opened: OpenedDatabase;

beforeAll(async () => {
  opened = await openDatabase({
    dataDir: dir,
    databaseUrl: await testDatabaseUrl(dir, 'postgres'),
    poolSize: 1,
  });
  await opened.db
    .insertInto('users')
    .values({
      id: 'u1',
      name: 'named-statements',
      created_at: 1,
      email: null,
      password_hash: null,
      role: 'user',
      disabled_at: null,
    })
    .execute();
});

afterAll(async () => {
  await opened?.close();
  await dropTestDatabase(dir, 'postgres');
  rmSync(dir, { recursive: true, force: true });
});

/** Names of the statements prepared on the pool's one connection. */
async function prepared(): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(
    opened.db,
  );
  return rows.map((r) => r.name);
}

/** The backend process of the pool's one connection. */
async function backendPid(): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db);
  return rows[0]!.pid;
}

describe('named prepared statements (PostgreSQL)', () => {
  it('prepares a preparedQuery once per connection and runs it by name; other queries stay unnamed', async () => {
    const byName = preparedQuery(
      opened.db,
      opened.db.selectFrom('users').select(['id', 'name']).where('name', '=', '?'),
      1,
    );
    const statements = namedStatementsOf(opened.db)!;
    expect(statements).toBeDefined();
    const before = await prepared();
    expect(await byName('named-statements')).toEqual([{ id: 'u1', name: 'named-statements' }]);
    expect(await byName('nobody')).toEqual([]);
    const after = await prepared();
    const added = after.filter((n) => !before.includes(n));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^vesta_[0-9a-f]{24}$/);
    // A query built the ordinary way, though run twice, is not prepared by name.
    for (let i = 0; i < 2; i++)
      await opened.db.selectFrom('users').select('id').where('id', '=', 'u1').executeTakeFirst();
    expect(await prepared()).toEqual(after);
    // The same text compiled again (another service instance) has the same name: nothing new.
    const again = preparedQuery(
      opened.db,
      opened.db.selectFrom('users').select(['id', 'name']).where('name', '=', '?'),
      1,
    );
    expect(await again('named-statements')).toHaveLength(1);
    expect(await prepared()).toEqual(after);
  });

  it('answers with the new column when a migration changes the table under a prepared select *', async () => {
    await sql`create table named_probe (id text primary key, a text not null)`.execute(opened.db);
    await sql`insert into named_probe values ('p1', 'one')`.execute(opened.db);
    const probe = preparedQuery<Record<string, unknown>>(
      opened.db,
      // Not in the schema types: a table of this test's own.
      opened.db
        .selectFrom('named_probe' as 'users')
        .selectAll()
        .where('id', '=', '?'),
      1,
    );
    expect(await probe('p1')).toEqual([{ id: 'p1', a: 'one' }]);
    const pid = await backendPid();
    // What a newer version's migration may do while this process serves.
    await sql`alter table named_probe add column b text not null default 'two'`.execute(opened.db);
    // PostgreSQL refuses the prepared statement now ("cached plan must not change result type");
    // the query is answered unnamed instead, and that connection is replaced.
    expect(await probe('p1')).toEqual([{ id: 'p1', a: 'one', b: 'two' }]);
    expect(await backendPid()).not.toBe(pid);
    // The new connection prepares it afresh, by name.
    const fresh = await prepared();
    expect(await probe('p1')).toEqual([{ id: 'p1', a: 'one', b: 'two' }]);
    expect((await prepared()).length).toBe(fresh.length + 1);
  });
});

describe('SQLite', () => {
  it('has no named-statement registry (its statement cache keeps statements prepared)', async () => {
    const sqliteDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-pg-named-sqlite-'));
    const sqlite = await openDatabase(sqliteDir);
    try {
      expect(namedStatementsOf(sqlite.db)).toBeUndefined();
      const q = preparedQuery(sqlite.db, sqlite.db.selectFrom('users').select('id').where('id', '=', '?'), 1);
      expect(await q('none')).toEqual([]);
    } finally {
      await sqlite.close();
      rmSync(sqliteDir, { recursive: true, force: true });
    }
  });
});
