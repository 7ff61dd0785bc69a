import type { Kysely } from 'kysely';

/**
 * Rate limits and sign-in lockout (issue #13): counters every API process of a deployment shares,
 * so that a limit holds however many processes serve the traffic. One row per limited subject
 * (`key`): a token bucket keeps its theoretical arrival time (`tat`, GCRA), the sign-in throttle
 * its failure count and lock. Rows are updated by single atomic statements; `expires_at` lets the
 * prune drop rows that no longer hold anything.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('tat', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('touched_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_by_expiry').on('rate_limits').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_limits').ifExists().execute();
}
