/**
 * Judging campaigns (issue #23): what a judge does — asks for pairs, votes, and reads the clips
 * offered to them.
 *
 * Pairs are offered actively (`PairSelection`): still short of their target votes, never offered
 * to the judge, both clips still there, the least certain first. Each offer records which clip is
 * on the left (random per pair and judge), so a left/right answer maps to clip ids. Votes are
 * append-only; the first vote of a judge on a pair stands (a unique index); a vote on a pair not
 * offered to the judge, a second vote and a vote after closing are refused with their own
 * catalogue codes.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type {
  CastJudgingVoteInput,
  JudgingOfferView,
  JudgingOutcome,
  JudgingVoteView,
  NextJudgingPairsView,
} from '../domain/views/judging.js';
import { AppError, conflict, forbidden, notFound } from '../errors.js';
import type {
  JudgingCampaignRecord,
  JudgingJudgeRecord,
  JudgingOfferRecord,
  JudgingPairRecord,
  Repositories,
} from '../repositories/index.js';
import { clipContentPath, iso, judgingClosed } from './judging-access.js';
import type { JudgingAccess } from './judging-access.js';
import type { PairSelection, SelectablePair, Take } from './judging-selection.js';

/** At most this many open offers a judge holds (one to answer, the next ones preloaded). */
export const MAX_OPEN_OFFERS = 3;

class PairTaken extends Error {}

export class JudgingOfferService {
  constructor(
    private readonly repos: Repositories,
    private readonly access: JudgingAccess,
    private readonly selection: PairSelection,
    private readonly now: () => number,
  ) {}

  /**
   * The caller's open offers (oldest first), topped up to `count` with new ones: pairs still
   * short of their votes, never offered to this judge, whose clips both still exist, best first.
   * Asking again without voting answers the same offers.
   */
  async nextPairs(userId: string, id: string, count = 1): Promise<NextJudgingPairsView> {
    const { campaign, judge } = await this.access.judge(userId, id);
    if (campaign.status === 'closed') throw judgingClosed(id);
    const want = Math.min(Math.max(1, count), MAX_OPEN_OFFERS);
    const t = this.now();
    // Every offer the judge ever had, read once: the open ones, and the pairs not to offer again.
    const mine = await this.repos.judging.offersOfJudge(judge.id);
    const offered = new Set(mine.map((o) => o.pair_id));
    let open = mine.filter((o) => o.answered_at === null && o.void_at === null);
    if (open.length > 0) {
      // An open offer whose clip was deleted is withdrawn (its slot given back).
      const gone = new Set(await this.repos.judging.goneClips(campaign.id));
      const withdrawn = open.filter((o) => gone.has(o.left_clip) || gone.has(o.right_clip));
      for (const o of withdrawn) await this.repos.transaction((tx) => tx.judging.voidOffer(o.id, t));
      if (withdrawn.length > 0) open = open.filter((o) => !withdrawn.includes(o));
    }
    let done = false;
    if (open.length < want) {
      const take = async (pair: SelectablePair): Promise<Take> => {
        const offer = await this.offerPair(campaign, judge, pair, t);
        if (offer === 'full' || offer === 'taken') return offer;
        open.push(offer);
        offered.add(pair.id);
        return 'mine';
      };
      await this.selection.pick(campaign, judge.id, offered, want - open.length, take);
      if (open.length < want) {
        // The kept order is a hint: before saying there is nothing (more), read the truth.
        const candidates = await this.repos.judging.candidatePairs(
          campaign.id,
          judge.id,
          campaign.votes_per_pair,
        );
        let found = false;
        for (const pair of await this.selection.rank(campaign, judge.id, candidates)) {
          if (open.length >= want) break;
          if ((await take(pair)) === 'mine') found = true;
        }
        // The order missed a pair with room (freed by a withdrawn offer, say): remake it.
        if (found) this.selection.forget(campaign.id);
      }
      done = open.length === 0;
    }
    // Oldest first, as `offersOfJudge` reads them: the same order on every ask.
    open.sort(
      (x, y) => Number(x.offered_at) - Number(y.offered_at) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
    );
    const prompts = await this.repos.judging.clipPrompts(
      campaign.id,
      open.map((o) => o.left_clip),
    );
    return {
      offers: open.map((o) => offerView(campaign, o, prompts)),
      done,
      yourVotes: await this.repos.judging.countVotesOf(judge.id),
    };
  }

  /** Reserves a slot of `pair` and offers it to `judge` (one transaction), sides drawn at random. */
  private async offerPair(
    campaign: JudgingCampaignRecord,
    judge: JudgingJudgeRecord,
    pair: SelectablePair,
    t: number,
  ): Promise<JudgingOfferRecord | 'full' | 'taken'> {
    return this.repos
      .transaction(async (tx) => {
        if (!(await tx.judging.reservePair(pair.id, campaign.votes_per_pair))) return 'full' as const;
        const leftIsA = randomInt(2) === 0;
        const row: JudgingOfferRecord = {
          id: randomUUID(),
          campaign_id: campaign.id,
          pair_id: pair.id,
          judge_id: judge.id,
          left_clip: leftIsA ? pair.clip_a : pair.clip_b,
          right_clip: leftIsA ? pair.clip_b : pair.clip_a,
          offered_at: t,
          answered_at: null,
          void_at: null,
        };
        // A concurrent request of the same judge took this pair: give the slot back.
        if (!(await tx.judging.insertOffer(row))) throw new PairTaken();
        return row;
      })
      .catch((e: unknown) => {
        if (e instanceof PairTaken) return 'taken' as const;
        throw e;
      });
  }

  async vote(userId: string, id: string, input: CastJudgingVoteInput): Promise<JudgingVoteView> {
    const { campaign, judge } = await this.access.judge(userId, id);
    if (campaign.status === 'closed') throw judgingClosed(id, ': it takes no more votes');
    const offer = await this.repos.judging.offer(campaign.id, input.offerId);
    if (!offer || offer.judge_id !== judge.id)
      throw new AppError(
        'pair_not_offered',
        `offer '${input.offerId}' was not offered to you in judging campaign '${id}': vote on the offers of GET …/next-pairs`,
      );
    const first = await this.repos.judging.voteOf(offer.pair_id, judge.id);
    if (first) throw alreadyVoted(first.answer);
    if (offer.void_at !== null)
      throw conflict(
        `offer '${offer.id}' was withdrawn: a clip of its pair was deleted; ask for the next pair`,
      );
    const pair = (await this.repos.judging.pair(offer.pair_id))!;
    const vote = {
      id: randomUUID(),
      campaign_id: campaign.id,
      pair_id: pair.id,
      judge_id: judge.id,
      offer_id: offer.id,
      answer: input.answer,
      outcome: outcomeOf(input.answer, offer, pair),
      left_clip: offer.left_clip,
      right_clip: offer.right_clip,
      created_at: this.now(),
    };
    const stored = await this.repos.transaction(async (tx) => {
      // Closed or the judge removed since the checks above: nothing is written.
      const now = await tx.judging.campaignOfJudge(userId, campaign.id);
      if (!now || now.judge.removed_at !== null)
        throw forbidden(`you were removed as a judge of judging campaign '${id}'`);
      if (now.campaign.status === 'closed') throw judgingClosed(id, ': it takes no more votes');
      return tx.judging.insertVote(vote);
    });
    if (!stored) {
      const winner = await this.repos.judging.voteOf(offer.pair_id, judge.id);
      throw alreadyVoted(winner?.answer ?? input.answer);
    }
    return {
      id: vote.id,
      offerId: offer.id,
      answer: vote.answer,
      createdAt: iso(vote.created_at)!,
      yourVotes: await this.repos.judging.countVotesOf(judge.id),
    };
  }

  /**
   * A campaign clip's video, for its bytes: the owner reads any clip of the campaign; a judge only
   * a clip offered to them. Everything else, and a deleted clip, is 404 naming the clip id only.
   */
  async clipVideo(userId: string, id: string, clipId: string): Promise<{ ownerId: string; videoId: string }> {
    const a = await this.access.of(userId, id);
    const clip = await this.repos.judging.clip(a.campaign.id, clipId);
    const missing = notFound(`clip '${clipId}' of judging campaign '${id}'`);
    if (!clip) throw missing;
    if (a.role !== 'owner' && !(a.judge && (await this.repos.judging.clipOfferedTo(a.judge.id, clip.id))))
      throw missing;
    if (clip.video_id === null) throw missing;
    return { ownerId: a.campaign.owner_id, videoId: clip.video_id };
  }
}

function offerView(
  campaign: JudgingCampaignRecord,
  o: JudgingOfferRecord,
  prompts: Map<string, string>,
): JudgingOfferView {
  return {
    offerId: o.id,
    campaignId: campaign.id,
    question: campaign.question,
    prompt: prompts.get(o.left_clip) ?? '',
    left: { clipId: o.left_clip, contentUrl: clipContentPath(campaign.id, o.left_clip) },
    right: { clipId: o.right_clip, contentUrl: clipContentPath(campaign.id, o.right_clip) },
    offeredAt: iso(o.offered_at)!,
  };
}

function alreadyVoted(answer: string): AppError {
  return new AppError('already_voted', `you already voted on this pair (${answer}); the first vote stands`);
}

/** The answer relative to the pair's clips A and B (a left/right answer through the offer's sides). */
export function outcomeOf(
  answer: CastJudgingVoteInput['answer'],
  offer: Pick<JudgingOfferRecord, 'left_clip' | 'right_clip'>,
  pair: Pick<JudgingPairRecord, 'clip_a'>,
): JudgingOutcome {
  if (answer === 'left') return offer.left_clip === pair.clip_a ? 'a' : 'b';
  if (answer === 'right') return offer.right_clip === pair.clip_a ? 'a' : 'b';
  return answer;
}
