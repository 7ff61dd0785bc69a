import type { Kysely } from 'kysely';

/**
 * The job engine of the distributed mode (issue #12): pg-boss keeps the jobs in its own schema;
 * these two tables are what Vesta adds on top of it, portable to both databases (the embedded
 * queue does not use them).
 *
 * - `job_leases`: one row per running job — who runs it, until when its lease holds (extended by
 *   the worker's heartbeat; a lease that runs out puts the job back), whose work it is (the
 *   fairness key, so a claim counts each key's running jobs), what it is about (the subject) and
 *   whether another process asked to cancel it. Deleting a job's lease row is the owner fence of
 *   its outcome.
 * - `job_fair_served`: when each fairness key was last served (a claim prefers the key served least
 *   recently).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_leases')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('queue', 'text', (c) => c.notNull())
    .addColumn('fairness_key', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('worker_id', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('job_leases_key').on('job_leases').column('fairness_key').execute();
  await db.schema.createIndex('job_leases_subject').on('job_leases').column('subject').execute();
  await db.schema.createIndex('job_leases_until').on('job_leases').column('lease_until').execute();
  await db.schema
    .createTable('job_fair_served')
    .addColumn('fairness_key', 'text', (c) => c.primaryKey())
    .addColumn('served_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_fair_served').ifExists().execute();
  await db.schema.dropTable('job_leases').ifExists().execute();
}
