/**
 * A judge's vote count (`yourVotes` on every next-pairs, vote and campaign answer) read by an index
 * on `judging_votes.judge_id` instead of a scan of every campaign's votes.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('judging_votes_judge').on('judging_votes').column('judge_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('judging_votes_judge').execute();
}
