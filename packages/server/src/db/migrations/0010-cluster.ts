import type { Kysely } from 'kysely';

/**
 * Uploads owned by a live process (issue #12, several api processes): `videos.upload_owner` names
 * the process whose PUT is streaming the clip (its process-lock id on PostgreSQL; null on the
 * embedded SQLite file, where one process owns the database). A claim whose owner is gone (killed
 * mid-body) is taken over by a retried PUT or released by the expired-upload sweep.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('upload_owner', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('upload_owner').execute();
}
