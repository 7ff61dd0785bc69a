import type { Kysely } from 'kysely';

/**
 * Distributed mode (issue #12): secrets every process of a deployment must share live in the
 * database, not in one machine's data directory. `service_secrets` holds them by name (the upload
 * signing key: an upload URL minted by one API process must verify in every other).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('service_secrets').ifExists().execute();
}
