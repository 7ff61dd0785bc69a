/**
 * How many rows a query matches (`count(*)`, as a number: the repositories' one count statement).
 * PostgreSQL's `count(*)` is a `bigint`, which the pool's type parsers (`db/connection.ts`) turn
 * into a number; `Number` keeps the answer a number whatever the connection.
 */
import type { SelectQueryBuilder } from 'kysely';

export async function countRows<DB, TB extends keyof DB>(
  query: SelectQueryBuilder<DB, TB, object>,
): Promise<number> {
  const row = await query
    .select((eb) => eb.fn.countAll<number>().as('n'))
    // The selection's type is lost on a generic builder; it is this one column.
    .$castTo<{ n: number }>()
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
