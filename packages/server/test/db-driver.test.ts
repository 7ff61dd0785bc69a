/**
 * The embedded database's driver pieces: the first-come, first-served connection lock in front of
 * Kysely's SQLite driver, and reader statements whose rows are built in JavaScript from raw
 * arrays — checked against better-sqlite3's own row objects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { FairSqliteDialect, FifoLock } from '../src/db/fair-sqlite-dialect.js';
import { withStatementCache } from '../src/db/statement-cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openFile(): { sqlite: SqliteDatabase.Database; db: Kysely<unknown> } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-driver-'));
  dirs.push(dir);
  const sqlite = new SqliteDatabase(path.join(dir, 'db.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  return {
    sqlite,
    db: new Kysely<unknown>({ dialect: new FairSqliteDialect({ database: withStatementCache(sqlite) }) }),
  };
}

describe('FifoLock', () => {
  it('grants the lock in arrival order and wakes one waiter per release', async () => {
    const lock = new FifoLock();
    const order: number[] = [];
    await lock.acquire();
    const waiters = [1, 2, 3].map((n) =>
      lock.acquire().then(() => {
        order.push(n);
      }),
    );
    expect(lock.queued).toBe(3);
    lock.release();
    await waiters[0];
    expect(order).toEqual([1]);
    expect(lock.queued).toBe(2);
    lock.release();
    lock.release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    lock.release();
    // Free again: the next acquire is granted at once.
    let granted = false;
    void lock.acquire().then(() => (granted = true));
    await Promise.resolve();
    expect(granted).toBe(true);
  });
});

describe('FairSqliteDialect', () => {
  it('serialises queries with a transaction that holds the connection across awaits', async () => {
    const { db } = openFile();
    await sql`create table t (n integer)`.execute(db);
    const seen: string[] = [];
    const trx = db.transaction().execute(async (t) => {
      await sql`insert into t values (1)`.execute(t);
      seen.push('trx inserted');
      await new Promise((r) => setTimeout(r, 20));
      await sql`insert into t values (2)`.execute(t);
      seen.push('trx done');
    });
    // Queued behind the transaction: they see both of its rows, never half of it.
    const reads = Array.from({ length: 50 }, () =>
      sql<{ n: number }>`select count(*) as n from t`.execute(db).then((r) => r.rows[0]?.n),
    );
    await trx;
    const counts = await Promise.all(reads);
    expect(seen).toEqual(['trx inserted', 'trx done']);
    expect(new Set(counts)).toEqual(new Set([2]));
    await db.destroy();
  });

  it('releases the connection when a query fails', async () => {
    const { db } = openFile();
    await expect(sql`select * from missing_table`.execute(db)).rejects.toThrow(/no such table/);
    await expect(sql<{ one: number }>`select 1 as one`.execute(db)).resolves.toMatchObject({
      rows: [{ one: 1 }],
    });
    await db.destroy();
  });
});

describe('rows built from raw arrays', () => {
  it('match better-sqlite3 row objects: key order, types, nulls, repeated names, returning', async () => {
    const { sqlite, db } = openFile();
    sqlite.exec(`create table a (id text primary key, n integer, x real, b blob, s text);
      create table c (id text, a_id text);
      insert into a values ('a1', 7, 1.5, x'0102', null), ('a2', -3, 0.25, null, 'two');
      insert into c values ('c1', 'a1');`);
    const queries = [
      'select * from a order by id',
      'select a.id, c.id, a.n from a join c on c.a_id = a.id',
      "select count(*) as n, 'lit' as s from a",
      'select * from a where id = ?',
    ];
    for (const q of queries) {
      const params = q.includes('?') ? ['a2'] : [];
      const expected = sqlite.prepare(q).all(...params);
      const got = (await db.executeQuery(CompiledQuery.raw(q, params))).rows;
      expect(got, q).toEqual(expected);
      for (let i = 0; i < expected.length; i++)
        expect(Object.keys(got[i] as object), q).toEqual(Object.keys(expected[i] as object));
    }
    const inserted = await sql<{
      id: string;
      n: number;
    }>`insert into a (id, n) values ('a3', 9) returning id, n`.execute(db);
    expect(inserted.rows).toEqual([{ id: 'a3', n: 9 }]);
    const updated = await sql`update a set n = n + 1 where id in ('a1', 'a2')`.execute(db);
    expect(updated.numAffectedRows).toBe(2n);
    const streamed: unknown[] = [];
    for await (const row of db
      .selectFrom('a' as never)
      .selectAll()
      .orderBy('id' as never)
      .stream())
      streamed.push(row);
    expect(streamed).toEqual(sqlite.prepare('select * from a order by id').all());
    await db.destroy();
  });
});
