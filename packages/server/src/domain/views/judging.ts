/**
 * What the judging campaigns (issue #23) answer: campaigns as their owner and as a judge see
 * them, judges, the pairs offered to a judge, votes, ratings and agreement. Checked against the
 * HTTP schemas at compile time (view-contracts.ts). A judge's views carry no model, run, file or
 * score name until the campaign is closed or revealed (`namesVisible`).
 */
export const JUDGING_QUESTION_KINDS = [
  'overall',
  'prompt_fit',
  'motion',
  'visual_quality',
  'custom',
] as const;
export type JudgingQuestionKind = (typeof JUDGING_QUESTION_KINDS)[number];
export type JudgingSourceKind = 'rank' | 'bench';
export type JudgingStatus = 'open' | 'closed';
export const JUDGING_ANSWERS = ['left', 'right', 'tie', 'both_bad', 'skip'] as const;
export type JudgingAnswer = (typeof JUDGING_ANSWERS)[number];
/** A vote's outcome relative to the pair's clips A and B (not to the sides they were shown on). */
export type JudgingOutcome = 'a' | 'b' | 'tie' | 'both_bad' | 'skip';

export interface JudgingQuestionView {
  kind: JudgingQuestionKind;
  text: string;
}

export interface CreateJudgingCampaignInput {
  name: string;
  question?: { kind: JudgingQuestionKind; text?: string };
  /** Make the campaign from this Rank session's candidates … */
  rankSessionId?: string;
  /** … or from these Bench runs (two or more, one prompt suite). */
  benchRunIds?: string[];
  votesPerPair?: number;
}

/** A rated entity: a Bench run or a Rank candidate (the owner's names). */
export interface JudgingItemView {
  /** The run id (Bench) or the candidate's video id (Rank). */
  id: string;
  label: string;
  clips: number;
}

export interface JudgingProgressView {
  pairs: number;
  /** Pairs that have their target number of votes. */
  pairsComplete: number;
  clips: number;
  /** Clips deleted after the campaign was made (their pairs are offered no more; votes stand). */
  clipsDeleted: number;
  /** Votes cast, skips included. */
  votes: number;
  judges: number;
  /** The caller's own votes (0 for an owner who does not judge). */
  yourVotes: number;
}

export interface JudgingCampaignView {
  id: string;
  name: string;
  /** How the caller takes part: the owner sees everything; a judge sees the campaign blinded. */
  role: 'owner' | 'judge';
  /** The owner also judges (added themselves as a judge): their votes are not blind. */
  isJudge: boolean;
  question: JudgingQuestionView;
  status: JudgingStatus;
  votesPerPair: number;
  createdAt: string;
  closedAt: string | null;
  revealedAt: string | null;
  /** Model, run and file names are shown (to the owner always; to judges once closed or revealed). */
  namesVisible: boolean;
  /** What the campaign was made from; null for a judge until names are visible. */
  source: { kind: JudgingSourceKind; ids: string[] } | null;
  /** The rated items; null for a judge until names are visible. */
  items: JudgingItemView[] | null;
  progress: JudgingProgressView;
}

export interface JudgeView {
  id: string;
  pseudonym: string;
  /** The judge's account name and email: shown to the owner only. */
  userName: string | null;
  email: string | null;
  /** `invited`: an email whose account does not exist yet; it becomes `active` when it does. */
  status: 'active' | 'invited' | 'removed';
  addedAt: string;
  removedAt: string | null;
  votes: number;
}

export interface AddJudgeInput {
  email?: string;
  userName?: string;
}

export interface AddedJudgeView {
  judge: JudgeView;
  /**
   * An invite made for an email with no account (the caller is an admin): its single-use link;
   * null when no invite was made (an existing user, or a caller who is not an admin).
   */
  invite: { url: string; expiresAt: string } | null;
}

export interface JudgingClipRefView {
  /** The campaign's id for the clip (not its video id). */
  clipId: string;
  /** Where its bytes are: a campaign-scoped path that names no video or file. */
  contentUrl: string;
}

export interface JudgingOfferView {
  offerId: string;
  campaignId: string;
  question: string;
  prompt: string;
  left: JudgingClipRefView;
  right: JudgingClipRefView;
  offeredAt: string;
}

export interface NextJudgingPairsView {
  /** The caller's open offers, oldest first: answer the first; preload the next. */
  offers: JudgingOfferView[];
  /** True when nothing is left for the caller to judge (every pair judged by them, or complete). */
  done: boolean;
  yourVotes: number;
}

export interface CastJudgingVoteInput {
  offerId: string;
  answer: JudgingAnswer;
}

export interface JudgingVoteView {
  id: string;
  offerId: string;
  answer: JudgingAnswer;
  createdAt: string;
  yourVotes: number;
}

export interface JudgingItemRatingView {
  /** The run id (Bench) or the candidate video id (Rank). */
  item: string;
  label: string;
  /** Log-strength (natural log, mean 0 over the items); null for an item with no counted vote. */
  rating: number | null;
  ci95Low: number | null;
  ci95High: number | null;
  votes: number;
  wins: number;
  losses: number;
  ties: number;
}

export interface JudgingWinCellView {
  item: string;
  opponent: string;
  wins: number;
  losses: number;
  ties: number;
}

export interface JudgingJudgeAgreementView {
  /** The judge's pseudonym. */
  judge: string;
  votes: number;
  agreement: number | null;
  belowChance: boolean;
}

export interface JudgingRatingsView {
  campaignId: string;
  /** Votes counted (removed judges' votes are left out). */
  votes: number;
  /** Votes of removed judges, kept but not counted. */
  votesExcluded: number;
  resamples: number;
  /** Best first. */
  items: JudgingItemRatingView[];
  /** Every pair of items that met: the first item's wins, losses and ties against the second. */
  winMatrix: JudgingWinCellView[];
  /** Per judge (pseudonym) agreement with the others; null for a judge reading a revealed campaign. */
  judges: JudgingJudgeAgreementView[] | null;
}

export interface JudgingDimensionAgreementView {
  dimension: string;
  pairs: number;
  agreement: number | null;
  ci95Low: number | null;
  ci95High: number | null;
  kendallTau: number | null;
}

export interface JudgingAgreementView {
  campaignId: string;
  votes: number;
  dimensions: JudgingDimensionAgreementView[];
  fitted: null | {
    heldOutAccuracy: number;
    bestSingleDimension: string;
    bestSingleAccuracy: number;
    weights: Record<string, number>;
    label: string;
  };
}
