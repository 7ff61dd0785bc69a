import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Tenancy (issue #15).
 *
 * - Jobs carry a fairness key (the user whose work it is, `''` when none), a priority (the lane:
 *   0 `interactive` before 1 `batch` within a key) and when they were last claimed, so that the claim can share the
 *   scoring slots fairly between users (see `adapters/job-queue/sqlite.ts`), and an enqueue
 *   sequence number for FIFO order within a key.
 * - Models get an owner. `models.id` stays the row's key (what `runner_models.model_id` and
 *   `bench_runs.model_id` reference); `models.public_id` is the id the API shows. A global model
 *   (built in, or added by the operator) has `owner_id` NULL and `id = public_id`; a model a user's
 *   runner declared is private to that user (`owner_id` set, `id` = `@<owner>/<public id>`, see
 *   `services/model-keys.ts`), so two users may each declare the same public id and neither sees
 *   the other's.
 *
 * Existing rows: every model the server created from a runner's declaration (its description is
 * the server's "Declared by runner …" text) becomes private to the users whose runners serve it:
 * each gets a copy of their own that their runners and runs move to (runs of other users follow
 * the earliest such user's copy). A declared model no runner serves any more goes to the user of
 * its earliest run; one with neither runner nor run is deleted. Other models stay global.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('fairness_key', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The lane as a number: 0 interactive, 1 batch (lower first).
  await db.schema
    .alterTable('jobs')
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('jobs').addColumn('claimed_at', 'bigint').execute();
  // Enqueue order (FIFO within a key even for jobs enqueued in the same millisecond).
  await db.schema
    .alterTable('jobs')
    .addColumn('seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('jobs_by_seq').on('jobs').column('seq').execute();
  // The keys with queued work, each key's ready and running jobs, its next job, and its last claim.
  await db.schema
    .createIndex('jobs_fair_ready')
    .on('jobs')
    .columns(['state', 'fairness_key', 'run_at'])
    .execute();
  await db.schema
    .createIndex('jobs_fair_next')
    .on('jobs')
    .columns(['state', 'fairness_key', 'priority', 'run_at', 'seq'])
    .execute();
  await db.schema
    .createIndex('jobs_fair_served')
    .on('jobs')
    .columns(['fairness_key', 'claimed_at'])
    .execute();

  await db.schema
    .alterTable('models')
    .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema
    .alterTable('models')
    .addColumn('public_id', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update models set public_id = id`.execute(db);
  await migrateDeclaredModels(db);
  // One global model per public id, and one private model per owner and public id.
  await db.schema
    .createIndex('models_global_public_id')
    .on('models')
    .column('public_id')
    .unique()
    .where(sql.ref('owner_id'), 'is', null)
    .execute();
  await db.schema
    .createIndex('models_private_public_id')
    .on('models')
    .columns(['owner_id', 'public_id'])
    .unique()
    .where(sql.ref('owner_id'), 'is not', null)
    .execute();
}

async function migrateDeclaredModels(db: Kysely<unknown>): Promise<void> {
  const declared = await sql<{ id: string; name: string; description: string; created_at: number }>`
    select id, name, description, created_at from models where description like ${'Declared by runner %'}
  `.execute(db);
  for (const model of declared.rows) {
    const runnerUsers = await sql<{ user_id: string }>`
      select r.user_id from runner_models rm join runners r on r.id = rm.runner_id
      where rm.model_id = ${model.id}
      group by r.user_id order by min(r.created_at), r.user_id
    `.execute(db);
    let owners = runnerUsers.rows.map((r) => r.user_id);
    if (owners.length === 0) {
      const runUsers = await sql<{ user_id: string }>`
        select user_id from bench_runs where model_id = ${model.id}
        group by user_id order by min(created_at), user_id
      `.execute(db);
      owners = runUsers.rows.slice(0, 1).map((r) => r.user_id);
    }
    const [first] = owners;
    if (first === undefined) {
      await sql`delete from models where id = ${model.id}`.execute(db);
      continue;
    }
    // Every owner gets a copy under a private key; their runners and runs move to it.
    for (const owner of owners) {
      const rowKey = `@${owner}/${model.id}`;
      await sql`insert into models (id, name, description, created_at, owner_id, public_id)
        values (${rowKey}, ${model.name}, ${model.description}, ${model.created_at}, ${owner}, ${model.id})`.execute(
        db,
      );
      await sql`update runner_models set model_id = ${rowKey}
        where model_id = ${model.id} and runner_id in (select id from runners where user_id = ${owner})`.execute(
        db,
      );
      await sql`update bench_runs set model_id = ${rowKey}
        where model_id = ${model.id} and user_id = ${owner}`.execute(db);
    }
    // Runs of other users that named the model before it was private keep pointing at the first
    // owner's copy (their views show the same public id); the shared row goes.
    await sql`update bench_runs set model_id = ${`@${first}/${model.id}`} where model_id = ${model.id}`.execute(
      db,
    );
    await sql`delete from models where id = ${model.id}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('models_private_public_id').ifExists().execute();
  await db.schema.dropIndex('models_global_public_id').ifExists().execute();
  await db.schema.alterTable('models').dropColumn('public_id').execute();
  await db.schema.alterTable('models').dropColumn('owner_id').execute();
  await db.schema.dropIndex('jobs_fair_served').ifExists().execute();
  await db.schema.dropIndex('jobs_fair_next').ifExists().execute();
  await db.schema.dropIndex('jobs_fair_ready').ifExists().execute();
  await db.schema.dropIndex('jobs_by_seq').ifExists().execute();
  await db.schema.alterTable('jobs').dropColumn('seq').execute();
  await db.schema.alterTable('jobs').dropColumn('claimed_at').execute();
  await db.schema.alterTable('jobs').dropColumn('priority').execute();
  await db.schema.alterTable('jobs').dropColumn('fairness_key').execute();
}
