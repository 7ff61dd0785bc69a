import type { Kysely } from 'kysely';

/**
 * Blob objects (issue #12, S3-compatible store): `videos.blob_version` keeps the version of the
 * object that confirm-upload checked and probed (S3's ETag; null for the local directory, whose
 * objects cannot change once uploaded). The evaluation reads exactly that version, so an object
 * replaced through a still-valid presigned URL after confirming is never scored with the stored probe.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('blob_version', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('blob_version').execute();
}
