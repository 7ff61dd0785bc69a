import type { Kysely } from 'kysely';

/**
 * Accounts for the web dashboard (issue #10): users gain an email, a password hash, a role and a
 * disabled time; server-side web sessions (only a hash of the cookie's token is stored); single-use
 * invites (only a hash of the token is stored); API keys gain a name, an expiry and a last-used
 * time; one row that marks first-run setup as done (its primary key makes the setup race-safe).
 * Portable: the schema builder only, epoch-ms timestamps as `bigint`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email', 'text').execute();
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('user'))
    .execute();
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
  // NULL emails (users made by `vesta admin create-key`) never collide.
  await db.schema.createIndex('users_email').on('users').column('email').unique().execute();

  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_by_user').on('api_keys').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('web_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_by_user').on('web_sessions').column('user_id').execute();

  await db.schema
    .createTable('invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('account_setup')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('completed_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_setup').ifExists().execute();
  await db.schema.dropTable('invites').ifExists().execute();
  await db.schema.dropTable('web_sessions').ifExists().execute();
}
