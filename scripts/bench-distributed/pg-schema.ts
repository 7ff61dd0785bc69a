/** A fresh PostgreSQL schema for one measurement (dropped afterwards). */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { BENCH_PG_URL } from './section.js';

export interface BenchSchema {
  /** BENCH_PG_URL with its connections' search_path on the schema. */
  url: string;
  drop(): Promise<void>;
}

async function admin(query: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

export async function freshSchema(prefix: string): Promise<BenchSchema> {
  const schema = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await admin(`create schema ${schema}`);
  const u = new URL(BENCH_PG_URL);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    drop: () =>
      admin(`drop schema if exists ${schema} cascade; drop schema if exists ${schema}_pgboss cascade`),
  };
}
