/**
 * Judging campaigns (issue #23): the campaign aggregate — its items, clips, pairs, judges, offers
 * and votes. Reads that serve an owner take the owner (`…OfOwner`): another user's campaign is
 * simply not found by them. Reads that serve a judge start from the judge's row
 * (`judgeOfUser`), so a judge reaches only campaigns they judge.
 *
 * Votes are append-only: nothing here updates or deletes a vote (a campaign's deletion cascades).
 * A second vote of one judge on one pair is refused by the unique index `(pair_id, judge_id)`
 * (`INSERT … ON CONFLICT DO NOTHING`, so two concurrent votes have exactly one winner); a pair's
 * counters move by compare-and-set statements inside the vote's transaction.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type {
  JudgingCampaignsTable,
  JudgingClipsTable,
  JudgingItemsTable,
  JudgingJudgesTable,
  JudgingOffersTable,
  JudgingPairsTable,
  JudgingVotesTable,
} from '../db/schema-judging.js';
import { countRows } from './count-rows.js';

export type JudgingCampaignRecord = Selectable<JudgingCampaignsTable>;
export type JudgingItemRecord = Selectable<JudgingItemsTable>;
export type JudgingClipRecord = Selectable<JudgingClipsTable>;
export type JudgingPairRecord = Selectable<JudgingPairsTable>;
export type JudgingJudgeRecord = Selectable<JudgingJudgesTable>;
export type JudgingOfferRecord = Selectable<JudgingOffersTable>;
export type JudgingVoteRecord = Selectable<JudgingVotesTable>;

/** A Bench clip a campaign can be made from: a done task of one of the owner's runs. */
export interface SourceBenchClip {
  run_id: string;
  video_id: string;
  prompt_id: string | null;
  prompt: string;
  sample_index: number;
}

/** A confirmed candidate of one of the owner's Rank sessions. */
export interface SourceRankClip {
  video_id: string;
  file_name: string;
  prompt: string | null;
}

/** A pair that may be offered, with what the choice needs. */
export interface CandidatePair {
  id: string;
  clip_a: string;
  clip_b: string;
  item_a: string;
  item_b: string;
  n_votes: number;
  n_open: number;
}

/** A vote with what ratings and the export read beside it. */
export interface VoteRow extends JudgingVoteRecord {
  pseudonym: string;
  judge_removed_at: number | null;
  clip_a: string;
  clip_b: string;
  item_a: string;
  item_b: string;
  prompt_key: string;
}

/** A campaign listed for a user: theirs, or one they judge. */
export interface ListedCampaign extends JudgingCampaignRecord {
  /** The caller's judge row on it, when they judge it (and were not removed). */
  judge_id: string | null;
}

const INSERT_BATCH = 200;

export class JudgingRepository {
  constructor(private readonly db: Db) {}

  // ---- the sources a campaign is made from (owner-scoped) ---------------------------------------

  /** The done clips of the owner's runs among `runIds` (another user's run contributes nothing). */
  async benchClipsOfOwner(ownerId: string, runIds: string[]): Promise<SourceBenchClip[]> {
    if (runIds.length === 0) return [];
    return this.db
      .selectFrom('bench_tasks')
      .innerJoin('bench_runs', 'bench_runs.id', 'bench_tasks.run_id')
      .innerJoin('videos', 'videos.id', 'bench_tasks.video_id')
      .select([
        'bench_tasks.run_id',
        'videos.id as video_id',
        'bench_tasks.prompt_id',
        'bench_tasks.prompt',
        'bench_tasks.sample_index',
      ])
      .where('bench_runs.user_id', '=', ownerId)
      .where('videos.user_id', '=', ownerId)
      .where('bench_tasks.run_id', 'in', runIds)
      .where('bench_tasks.state', '=', 'done')
      .orderBy('bench_tasks.run_id')
      .orderBy('bench_tasks.seq')
      .execute();
  }

  /** The confirmed candidates of the owner's Rank session `sessionId`. */
  async rankClipsOfOwner(ownerId: string, sessionId: string): Promise<SourceRankClip[]> {
    return this.db
      .selectFrom('videos')
      .select(['id as video_id', 'file_name', 'prompt'])
      .where('session_id', '=', sessionId)
      .where('user_id', '=', ownerId)
      .where('confirmed_at', 'is not', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  // ---- campaigns ---------------------------------------------------------------------------------

  async insertCampaign(
    campaign: JudgingCampaignRecord,
    items: JudgingItemRecord[],
    clips: JudgingClipRecord[],
    pairs: Omit<JudgingPairRecord, 'n_votes' | 'n_open'>[],
  ): Promise<void> {
    await this.db.insertInto('judging_campaigns').values(campaign).execute();
    for (let i = 0; i < items.length; i += INSERT_BATCH)
      await this.db
        .insertInto('judging_items')
        .values(items.slice(i, i + INSERT_BATCH))
        .execute();
    for (let i = 0; i < clips.length; i += INSERT_BATCH)
      await this.db
        .insertInto('judging_clips')
        .values(clips.slice(i, i + INSERT_BATCH))
        .execute();
    for (let i = 0; i < pairs.length; i += INSERT_BATCH)
      await this.db
        .insertInto('judging_pairs')
        .values(pairs.slice(i, i + INSERT_BATCH).map((p) => ({ ...p, n_votes: 0, n_open: 0 })))
        .execute();
  }

  /** Whether a campaign with this id exists (whoever's it is): tells 403 from 404. */
  async exists(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('judging_campaigns')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  async campaignOfOwner(ownerId: string, id: string): Promise<JudgingCampaignRecord | undefined> {
    return this.db
      .selectFrom('judging_campaigns')
      .selectAll()
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
  }

  /** The campaign `id` as its judge `userId` reaches it (with their judge row), if they judge it: one read. */
  async campaignOfJudge(
    userId: string,
    id: string,
  ): Promise<{ campaign: JudgingCampaignRecord; judge: JudgingJudgeRecord } | undefined> {
    const row = await this.db
      .selectFrom('judging_judges as j')
      .innerJoin('judging_campaigns as c', 'c.id', 'j.campaign_id')
      .selectAll('c')
      .select([
        'j.id as judge_id',
        'j.user_id as judge_user_id',
        'j.email as judge_email',
        'j.pseudonym as judge_pseudonym',
        'j.added_at as judge_added_at',
        'j.removed_at as judge_removed_at',
      ])
      .where('j.campaign_id', '=', id)
      .where('j.user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return undefined;
    const {
      judge_id,
      judge_user_id,
      judge_email,
      judge_pseudonym,
      judge_added_at,
      judge_removed_at,
      ...campaign
    } = row;
    return {
      campaign,
      judge: {
        id: judge_id,
        campaign_id: campaign.id,
        user_id: judge_user_id,
        email: judge_email,
        pseudonym: judge_pseudonym,
        added_at: judge_added_at,
        removed_at: judge_removed_at,
      },
    };
  }

  /** The campaigns a user owns or judges (not removed), newest first. */
  async listForUser(userId: string): Promise<ListedCampaign[]> {
    const owned = await this.db
      .selectFrom('judging_campaigns')
      .selectAll()
      .where('owner_id', '=', userId)
      .execute();
    const judged = await this.db
      .selectFrom('judging_judges')
      .innerJoin('judging_campaigns', 'judging_campaigns.id', 'judging_judges.campaign_id')
      .selectAll('judging_campaigns')
      .select('judging_judges.id as judge_id')
      .where('judging_judges.user_id', '=', userId)
      .where('judging_judges.removed_at', 'is', null)
      .execute();
    const judgeOf = new Map(judged.map((r) => [r.id, r.judge_id]));
    const all = new Map<string, ListedCampaign>();
    for (const c of owned) all.set(c.id, { ...c, judge_id: judgeOf.get(c.id) ?? null });
    for (const c of judged) if (!all.has(c.id)) all.set(c.id, c);
    return [...all.values()].sort(
      (x, y) => Number(y.created_at) - Number(x.created_at) || (x.id < y.id ? -1 : 1),
    );
  }

  async deleteOfOwner(ownerId: string, id: string): Promise<boolean> {
    // Children first: SQLite and PostgreSQL both cascade, but an explicit order keeps it one story.
    const owned = await this.campaignOfOwner(ownerId, id);
    if (!owned) return false;
    for (const t of [
      'judging_votes',
      'judging_offers',
      'judging_judges',
      'judging_pairs',
      'judging_clips',
      'judging_items',
    ] as const)
      await this.db.deleteFrom(t).where('campaign_id', '=', id).execute();
    await this.db.deleteFrom('judging_campaigns').where('id', '=', id).execute();
    return true;
  }

  /** open → closed; false when it was not open. */
  async close(ownerId: string, id: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable('judging_campaigns')
      .set({ status: 'closed', closed_at: at })
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async reveal(ownerId: string, id: string, at: number): Promise<void> {
    await this.db
      .updateTable('judging_campaigns')
      .set({ revealed_at: at })
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .where('revealed_at', 'is', null)
      .execute();
  }

  async itemsOf(campaignId: string): Promise<JudgingItemRecord[]> {
    return this.db
      .selectFrom('judging_items')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .orderBy('ordinal')
      .execute();
  }

  async clipsOf(campaignId: string): Promise<JudgingClipRecord[]> {
    return this.db.selectFrom('judging_clips').selectAll().where('campaign_id', '=', campaignId).execute();
  }

  async clip(campaignId: string, clipId: string): Promise<JudgingClipRecord | undefined> {
    return this.db
      .selectFrom('judging_clips')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('id', '=', clipId)
      .executeTakeFirst();
  }

  /** Clips of the campaign whose video was deleted. */
  async goneClips(campaignId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('judging_clips')
      .select('id')
      .where('campaign_id', '=', campaignId)
      .where('video_id', 'is', null)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Pairs, clips and how far the campaign got. */
  async progressOf(campaignId: string): Promise<{
    pairs: number;
    pairs_complete: number;
    clips: number;
    clips_deleted: number;
  }> {
    const pairs = await this.db
      .selectFrom('judging_pairs')
      .innerJoin('judging_campaigns', 'judging_campaigns.id', 'judging_pairs.campaign_id')
      .select([
        (eb) => eb.fn.countAll<number>().as('pairs'),
        sql<number>`coalesce(sum(case when judging_pairs.n_votes >= judging_campaigns.votes_per_pair then 1 else 0 end), 0)`.as(
          'pairs_complete',
        ),
      ])
      .where('judging_pairs.campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    const clips = await this.db
      .selectFrom('judging_clips')
      .select([
        (eb) => eb.fn.countAll<number>().as('clips'),
        sql<number>`coalesce(sum(case when video_id is null then 1 else 0 end), 0)`.as('clips_deleted'),
      ])
      .where('campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    return {
      pairs: Number(pairs.pairs),
      pairs_complete: Number(pairs.pairs_complete),
      clips: Number(clips.clips),
      clips_deleted: Number(clips.clips_deleted),
    };
  }

  /** Scores of the campaign's clips that still exist: clip id → dimension → value. */
  async clipScoresOf(campaignId: string): Promise<{ clip_id: string; dimension: string; value: number }[]> {
    return this.db
      .selectFrom('judging_clips')
      .innerJoin('scores', 'scores.video_id', 'judging_clips.video_id')
      .select(['judging_clips.id as clip_id', 'scores.dimension', 'scores.value'])
      .where('judging_clips.campaign_id', '=', campaignId)
      .execute();
  }

  // ---- judges ------------------------------------------------------------------------------------

  async judgesOf(campaignId: string): Promise<JudgingJudgeRecord[]> {
    return this.db
      .selectFrom('judging_judges')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .orderBy('added_at')
      .orderBy('pseudonym')
      .execute();
  }

  async judge(campaignId: string, judgeId: string): Promise<JudgingJudgeRecord | undefined> {
    return this.db
      .selectFrom('judging_judges')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('id', '=', judgeId)
      .executeTakeFirst();
  }

  async judgeByUserOrEmail(
    campaignId: string,
    userId: string | null,
    email: string | null,
  ): Promise<JudgingJudgeRecord | undefined> {
    let q = this.db.selectFrom('judging_judges').selectAll().where('campaign_id', '=', campaignId);
    q = q.where((eb) =>
      eb.or([
        ...(userId === null ? [] : [eb('user_id', '=', userId)]),
        ...(email === null ? [] : [eb('email', '=', email)]),
      ]),
    );
    return q.executeTakeFirst();
  }

  async countJudges(campaignId: string): Promise<number> {
    return countRows(this.db.selectFrom('judging_judges').where('campaign_id', '=', campaignId));
  }

  async insertJudge(row: JudgingJudgeRecord): Promise<void> {
    await this.db.insertInto('judging_judges').values(row).execute();
  }

  async restoreJudge(judgeId: string): Promise<void> {
    await this.db.updateTable('judging_judges').set({ removed_at: null }).where('id', '=', judgeId).execute();
  }

  /** Marks the judge removed; their open offers are voided and release their pairs. */
  async removeJudge(judgeId: string, at: number): Promise<void> {
    await this.db
      .updateTable('judging_judges')
      .set({ removed_at: at })
      .where('id', '=', judgeId)
      .where('removed_at', 'is', null)
      .execute();
    const open = await this.db
      .selectFrom('judging_offers')
      .select('id')
      .where('judge_id', '=', judgeId)
      .where('answered_at', 'is', null)
      .where('void_at', 'is', null)
      .execute();
    for (const o of open) await this.voidOffer(o.id, at);
  }

  /** An invited email's account now exists: its judge rows become that user's. */
  async bindInvitedJudges(email: string, userId: string): Promise<void> {
    await this.db
      .updateTable('judging_judges')
      .set({ user_id: userId })
      .where('email', '=', email)
      .where('user_id', 'is', null)
      .execute();
  }

  // ---- offers ------------------------------------------------------------------------------------

  async offer(campaignId: string, offerId: string): Promise<JudgingOfferRecord | undefined> {
    return this.db
      .selectFrom('judging_offers')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('id', '=', offerId)
      .executeTakeFirst();
  }

  /** Whether clip `clipId` was shown to judge `judgeId` (in any offer, answered or not). */
  async clipOfferedTo(judgeId: string, clipId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('judging_offers')
      .select('id')
      .where('judge_id', '=', judgeId)
      .where((eb) => eb.or([eb('left_clip', '=', clipId), eb('right_clip', '=', clipId)]))
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Pairs that still need votes (votes + open offers under `target`) and were never offered to
   * judge `judgeId`.
   */
  async candidatePairs(campaignId: string, judgeId: string, target: number): Promise<CandidatePair[]> {
    return this.db
      .selectFrom('judging_pairs as p')
      .select(['p.id', 'p.clip_a', 'p.clip_b', 'p.item_a', 'p.item_b', 'p.n_votes', 'p.n_open'])
      .where('p.campaign_id', '=', campaignId)
      .where(sql<boolean>`p.n_votes + p.n_open < ${target}`)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('judging_offers as o')
              .select('o.id')
              .whereRef('o.pair_id', '=', 'p.id')
              .where('o.judge_id', '=', judgeId),
          ),
        ),
      )
      .execute();
  }

  /** Every pair of the campaign with its votes and open offers (what the pair choice ranks). */
  async pairLoads(campaignId: string): Promise<CandidatePair[]> {
    return this.db
      .selectFrom('judging_pairs')
      .select(['id', 'clip_a', 'clip_b', 'item_a', 'item_b', 'n_votes', 'n_open'])
      .where('campaign_id', '=', campaignId)
      .execute();
  }

  /** Every offer made to judge `judgeId` (answered, void or open), oldest first. */
  async offersOfJudge(judgeId: string): Promise<JudgingOfferRecord[]> {
    return this.db
      .selectFrom('judging_offers')
      .selectAll()
      .where('judge_id', '=', judgeId)
      .orderBy('offered_at')
      .orderBy('id')
      .execute();
  }

  /** The prompt of each of the campaign's clips among `clipIds`. */
  async clipPrompts(campaignId: string, clipIds: string[]): Promise<Map<string, string>> {
    if (clipIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('judging_clips')
      .select(['id', 'prompt'])
      .where('campaign_id', '=', campaignId)
      .where('id', 'in', clipIds)
      .execute();
    return new Map(rows.map((r) => [r.id, r.prompt]));
  }

  /**
   * Takes one open slot of the pair when it still has one and both its clips still exist
   * (compare-and-set: concurrent takers in any process never exceed the target).
   */
  async reservePair(pairId: string, target: number): Promise<boolean> {
    const r = await this.db
      .updateTable('judging_pairs')
      .set((eb) => ({ n_open: eb('n_open', '+', 1) }))
      .where('id', '=', pairId)
      .where(sql<boolean>`n_votes + n_open < ${target}`)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('judging_clips as c')
              .select('c.id')
              .where((w) =>
                w.or([
                  w('c.id', '=', w.ref('judging_pairs.clip_a')),
                  w('c.id', '=', w.ref('judging_pairs.clip_b')),
                ]),
              )
              .where('c.video_id', 'is', null),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Inserts the offer; false when this judge was already offered this pair (nothing written). */
  async insertOffer(row: JudgingOfferRecord): Promise<boolean> {
    const r = await this.db
      .insertInto('judging_offers')
      .values(row)
      .onConflict((oc) => oc.columns(['pair_id', 'judge_id']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async pair(pairId: string): Promise<JudgingPairRecord | undefined> {
    return this.db.selectFrom('judging_pairs').selectAll().where('id', '=', pairId).executeTakeFirst();
  }

  /** Voids an open offer and gives its slot back to the pair. */
  async voidOffer(offerId: string, at: number): Promise<void> {
    const r = await this.db
      .updateTable('judging_offers')
      .set({ void_at: at })
      .where('id', '=', offerId)
      .where('answered_at', 'is', null)
      .where('void_at', 'is', null)
      .returning('pair_id')
      .executeTakeFirst();
    if (r)
      await this.db
        .updateTable('judging_pairs')
        .set((eb) => ({ n_open: eb('n_open', '-', 1) }))
        .where('id', '=', r.pair_id)
        .where('n_open', '>', 0)
        .execute();
  }

  // ---- votes -------------------------------------------------------------------------------------

  /**
   * Records a vote on its offer: false (and nothing written) when the judge already voted on the
   * pair. Moves the offer to answered, the pair's open offer into its votes (a skip is not a vote
   * on the pair) and the campaign's count, in the caller's transaction.
   */
  async insertVote(row: JudgingVoteRecord): Promise<boolean> {
    const r = await this.db
      .insertInto('judging_votes')
      .values(row)
      .onConflict((oc) => oc.columns(['pair_id', 'judge_id']).doNothing())
      .executeTakeFirst();
    if (Number(r.numInsertedOrUpdatedRows ?? 0n) !== 1) return false;
    const answered = await this.db
      .updateTable('judging_offers')
      .set({ answered_at: row.created_at })
      .where('id', '=', row.offer_id)
      .where('answered_at', 'is', null)
      .where('void_at', 'is', null)
      .executeTakeFirst();
    const wasOpen = Number(answered.numUpdatedRows) === 1;
    const counts = row.answer === 'skip' ? 0 : 1;
    await this.db
      .updateTable('judging_pairs')
      .set((eb) => ({
        n_votes: eb('n_votes', '+', counts),
        n_open: wasOpen ? sql<number>`case when n_open > 0 then n_open - 1 else 0 end` : eb.ref('n_open'),
      }))
      .where('id', '=', row.pair_id)
      .execute();
    await this.db
      .updateTable('judging_campaigns')
      .set((eb) => ({ n_votes: eb('n_votes', '+', 1) }))
      .where('id', '=', row.campaign_id)
      .execute();
    return true;
  }

  async voteOf(pairId: string, judgeId: string): Promise<JudgingVoteRecord | undefined> {
    return this.db
      .selectFrom('judging_votes')
      .selectAll()
      .where('pair_id', '=', pairId)
      .where('judge_id', '=', judgeId)
      .executeTakeFirst();
  }

  async countVotesOf(judgeId: string): Promise<number> {
    return countRows(this.db.selectFrom('judging_votes').where('judge_id', '=', judgeId));
  }

  /** Every vote of the campaign in order, with its judge's pseudonym and the pair it was on. */
  async votesOf(campaignId: string): Promise<VoteRow[]> {
    return this.db
      .selectFrom('judging_votes as v')
      .innerJoin('judging_judges as j', 'j.id', 'v.judge_id')
      .innerJoin('judging_pairs as p', 'p.id', 'v.pair_id')
      .selectAll('v')
      .select([
        'j.pseudonym',
        'j.removed_at as judge_removed_at',
        'p.clip_a',
        'p.clip_b',
        'p.item_a',
        'p.item_b',
        'p.prompt_key',
      ])
      .where('v.campaign_id', '=', campaignId)
      .orderBy('v.created_at')
      .orderBy('v.id')
      .execute();
  }
}
