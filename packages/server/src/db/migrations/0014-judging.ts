import type { Kysely } from 'kysely';

/**
 * Human judgement (issue #23): blind pairwise judging campaigns.
 *
 * - `judging_campaigns`: one campaign of its owner, from a Rank session's candidates or from two
 *   or more Bench runs on one prompt suite; its question, target votes per pair, status
 *   (`open` → `closed`), when the owner revealed the names, and a per-campaign seed.
 * - `judging_items`: the rated entities (a Bench run, or a Rank candidate) with the label shown
 *   only to the owner (and to judges once the campaign is closed or revealed).
 * - `judging_clips`: the campaign's clips under ids of their own (what judges see); `video_id`
 *   becomes null when the clip is deleted (`ON DELETE SET NULL`), its item and prompt stay.
 * - `judging_pairs`: two clips of one prompt from two items; votes and open offers counted.
 * - `judging_judges`: who judges (a user, or an email waiting for its account), by pseudonym;
 *   `removed_at` once the owner removed them.
 * - `judging_offers`: a pair offered to a judge, with the side each clip is shown on; unique per
 *   pair and judge (a pair is offered to a judge at most once).
 * - `judging_votes`: append-only answers; unique per pair and judge (nothing counted twice).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('judging_campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('question_kind', 'text', (c) => c.notNull())
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_ids', 'text', (c) => c.notNull())
    .addColumn('votes_per_pair', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('seed', 'text', (c) => c.notNull())
    .addColumn('n_votes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('closed_at', 'bigint')
    .addColumn('revealed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('judging_campaigns_owner')
    .on('judging_campaigns')
    .columns(['owner_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('judging_items')
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('judging_campaigns.id').onDelete('cascade'),
    )
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('judging_items_pk', ['campaign_id', 'item'])
    .execute();

  await db.schema
    .createTable('judging_clips')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('judging_campaigns.id').onDelete('cascade'),
    )
    .addColumn('video_id', 'text', (c) => c.references('videos.id').onDelete('set null'))
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('prompt_key', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('sample_index', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('judging_clips_campaign')
    .on('judging_clips')
    .columns(['campaign_id', 'video_id'])
    .execute();
  await db.schema.createIndex('judging_clips_video').on('judging_clips').column('video_id').execute();

  await db.schema
    .createTable('judging_pairs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('judging_campaigns.id').onDelete('cascade'),
    )
    .addColumn('clip_a', 'text', (c) => c.notNull())
    .addColumn('clip_b', 'text', (c) => c.notNull())
    .addColumn('item_a', 'text', (c) => c.notNull())
    .addColumn('item_b', 'text', (c) => c.notNull())
    .addColumn('prompt_key', 'text', (c) => c.notNull())
    .addColumn('n_votes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('n_open', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('judging_pairs_campaign').on('judging_pairs').column('campaign_id').execute();

  await db.schema
    .createTable('judging_judges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('judging_campaigns.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text')
    .addColumn('email', 'text')
    .addColumn('pseudonym', 'text', (c) => c.notNull())
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    .addColumn('removed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('judging_judges_user')
    .on('judging_judges')
    .columns(['campaign_id', 'user_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('judging_judges_email')
    .on('judging_judges')
    .columns(['campaign_id', 'email'])
    .unique()
    .execute();
  await db.schema.createIndex('judging_judges_by_user').on('judging_judges').column('user_id').execute();
  await db.schema.createIndex('judging_judges_by_email').on('judging_judges').column('email').execute();

  await db.schema
    .createTable('judging_offers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('judging_campaigns.id').onDelete('cascade'),
    )
    .addColumn('pair_id', 'text', (c) => c.notNull())
    .addColumn('judge_id', 'text', (c) => c.notNull())
    .addColumn('left_clip', 'text', (c) => c.notNull())
    .addColumn('right_clip', 'text', (c) => c.notNull())
    .addColumn('offered_at', 'bigint', (c) => c.notNull())
    .addColumn('answered_at', 'bigint')
    .addColumn('void_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('judging_offers_pair_judge')
    .on('judging_offers')
    .columns(['pair_id', 'judge_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('judging_offers_judge')
    .on('judging_offers')
    .columns(['judge_id', 'answered_at'])
    .execute();

  await db.schema
    .createTable('judging_votes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('judging_campaigns.id').onDelete('cascade'),
    )
    .addColumn('pair_id', 'text', (c) => c.notNull())
    .addColumn('judge_id', 'text', (c) => c.notNull())
    .addColumn('offer_id', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('left_clip', 'text', (c) => c.notNull())
    .addColumn('right_clip', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('judging_votes_pair_judge')
    .on('judging_votes')
    .columns(['pair_id', 'judge_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('judging_votes_campaign')
    .on('judging_votes')
    .columns(['campaign_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'judging_votes',
    'judging_offers',
    'judging_judges',
    'judging_pairs',
    'judging_clips',
    'judging_items',
    'judging_campaigns',
  ])
    await db.schema.dropTable(t).ifExists().execute();
}
