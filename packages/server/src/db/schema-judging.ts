/**
 * Judging tables (issue #23, migration `0014-judging.ts`): blind pairwise judging campaigns over a
 * user's own clips. Timestamps are epoch milliseconds; JSON columns hold serialised text.
 */
import type { Generated } from 'kysely';
import type {
  JudgingAnswer,
  JudgingOutcome,
  JudgingQuestionKind,
  JudgingSourceKind,
  JudgingStatus,
} from '../domain/views/judging.js';

export interface JudgingCampaignsTable {
  id: string;
  owner_id: string;
  name: string;
  question_kind: JudgingQuestionKind;
  question: string;
  source_kind: JudgingSourceKind;
  /** JSON array: the Rank session id, or the Bench run ids, the campaign was made from. */
  source_ids: string;
  /** Votes (answers other than `skip`) each pair should get; a pair that has them is offered no more. */
  votes_per_pair: number;
  status: JudgingStatus;
  /** Seeds the campaign's statistics (bootstraps) and tie-breaks. */
  seed: string;
  /** Votes cast, skips included. */
  n_votes: Generated<number>;
  created_at: number;
  closed_at: number | null;
  /** When the owner revealed the names to the judges (closing reveals them too). */
  revealed_at: number | null;
}

/** A rated entity: a Bench run (`item` = run id) or a Rank candidate (`item` = its video id). */
export interface JudgingItemsTable {
  campaign_id: string;
  item: string;
  /** What the owner sees: the model and run name, or the candidate's file name. */
  label: string;
  ordinal: number;
}

export interface JudgingClipsTable {
  /** The id judges see (random; unrelated to the video id). */
  id: string;
  campaign_id: string;
  /** The clip's video; null once it was deleted. */
  video_id: string | null;
  item: string;
  /** The suite prompt id (Bench) or the prompt's text: pairs are made within one key. */
  prompt_key: string;
  prompt: string;
  sample_index: number;
}

export interface JudgingPairsTable {
  id: string;
  campaign_id: string;
  clip_a: string;
  clip_b: string;
  item_a: string;
  item_b: string;
  prompt_key: string;
  /** Votes other than `skip`. */
  n_votes: Generated<number>;
  /** Offers made and not answered yet. */
  n_open: Generated<number>;
}

export interface JudgingJudgesTable {
  id: string;
  campaign_id: string;
  /** Null while the judge is an email waiting for its account (an invite). */
  user_id: string | null;
  email: string | null;
  /** What everyone but the owner sees of a judge, and what the export names. */
  pseudonym: string;
  added_at: number;
  removed_at: number | null;
}

export interface JudgingOffersTable {
  id: string;
  campaign_id: string;
  pair_id: string;
  judge_id: string;
  /** The clip shown on the left (randomised per pair and judge), and on the right. */
  left_clip: string;
  right_clip: string;
  offered_at: number;
  answered_at: number | null;
  /** Set when the offer can no longer be answered (a clip of its pair was deleted). */
  void_at: number | null;
}

export interface JudgingVotesTable {
  id: string;
  campaign_id: string;
  pair_id: string;
  judge_id: string;
  offer_id: string;
  answer: JudgingAnswer;
  outcome: JudgingOutcome;
  left_clip: string;
  right_clip: string;
  created_at: number;
}

export interface JudgingTables {
  judging_campaigns: JudgingCampaignsTable;
  judging_items: JudgingItemsTable;
  judging_clips: JudgingClipsTable;
  judging_pairs: JudgingPairsTable;
  judging_judges: JudgingJudgesTable;
  judging_offers: JudgingOffersTable;
  judging_votes: JudgingVotesTable;
}
