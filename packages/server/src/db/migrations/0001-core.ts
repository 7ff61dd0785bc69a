import type { Kysely } from 'kysely';

/** Users, API keys, Score/Rank sessions, videos and their scores, idempotency records, jobs. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .addColumn('active', 'integer')
    .execute();
  // One current session per user and kind: `active` is 1 or NULL, and NULLs never collide.
  await db.schema
    .createIndex('sessions_one_active')
    .on('sessions')
    .columns(['user_id', 'kind', 'active'])
    .unique()
    .execute();

  await db.schema
    .createTable('videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text')
    .addColumn('auxiliary', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_detail', 'text')
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('max_bytes', 'bigint', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint')
    .addColumn('upload_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('upload_started_at', 'bigint')
    .addColumn('probe', 'text')
    .addColumn('dimensions', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('uploaded_at', 'bigint')
    .addColumn('confirmed_at', 'bigint')
    .addColumn('scored_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('videos_by_session')
    .on('videos')
    .columns(['session_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('scores')
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('method_version', 'text', (c) => c.notNull())
    .addColumn('frames', 'text', (c) => c.notNull())
    .addColumn('models', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('elapsed_ms', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scores_pk', ['video_id', 'dimension'])
    .execute();

  await db.schema
    .createTable('score_failures')
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('score_failures_pk', ['video_id', 'dimension'])
    .execute();

  await db.schema
    .createTable('idempotency_records')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('content_type', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_pk', ['user_id', 'route', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_by_age').on('idempotency_records').column('created_at').execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['state', 'run_at']).execute();
  await db.schema.createIndex('jobs_by_subject').on('jobs').column('subject').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'jobs',
    'idempotency_records',
    'score_failures',
    'scores',
    'videos',
    'sessions',
    'api_keys',
    'users',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
