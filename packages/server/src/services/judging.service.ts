/**
 * Judging campaigns (issue #23): blind pairwise judgement of a user's own clips. This is the one
 * service the routes hold; the work is done by its parts:
 *
 * - `judging-access.ts`: who may do what (the owner by an owner-scoped read, a judge through their
 *   judge row) and the pieces the parts share;
 * - `judging-campaign.service.ts`: making a campaign from Rank candidates or Bench runs, reading,
 *   closing, revealing and deleting it;
 * - `judging-judge.service.ts`: the owner's judges (adding by email or user name, invites, removal);
 * - `judging-offer.service.ts` with `judging-selection.ts`: pairs offered to a judge (the least
 *   certain first, each once per judge, up to the target votes) and their votes;
 * - `judging-results.service.ts` with `judging-export.ts`: ratings, agreement and the export.
 *
 * Blinding: a judge reaches the campaign through judging operations only, which show clips under
 * campaign ids of their own, their bytes through a campaign-scoped path, the prompt and the
 * question; no model, run, file or score name until the campaign is closed or revealed.
 */
import type {
  AddJudgeInput,
  CastJudgingVoteInput,
  CreateJudgingCampaignInput,
  JudgeView,
  JudgingAgreementView,
  JudgingCampaignView,
  JudgingRatingsView,
  JudgingVoteView,
  NextJudgingPairsView,
} from '../domain/views/judging.js';
import type { Repositories } from '../repositories/index.js';
import { JudgingAccess } from './judging-access.js';
import { JudgingCampaignService } from './judging-campaign.service.js';
import type { ExportedVote } from './judging-export.js';
import { JudgingJudgeService } from './judging-judge.service.js';
import type { AddedJudge, JudgeInviter } from './judging-judge.service.js';
import { JudgingOfferService } from './judging-offer.service.js';
import { JudgingResultsService } from './judging-results.service.js';
import { PairSelection } from './judging-selection.js';

export { clipContentPath } from './judging-access.js';
export {
  DEFAULT_QUESTIONS,
  DEFAULT_VOTES_PER_PAIR,
  MAX_PAIRS,
  MAX_RANK_CANDIDATES,
} from './judging-campaign.service.js';
export { EXPORT_COLUMNS, votesCsv, votesJsonl } from './judging-export.js';
export type { ExportedVote } from './judging-export.js';
export type { AddedJudge, JudgeInviter } from './judging-judge.service.js';
export { MAX_OPEN_OFFERS, outcomeOf } from './judging-offer.service.js';
export { SELECTION_REFRESH_MS } from './judging-selection.js';

export class JudgingService {
  private readonly campaigns: JudgingCampaignService;
  private readonly judges: JudgingJudgeService;
  private readonly offers: JudgingOfferService;
  private readonly results: JudgingResultsService;

  constructor(repos: Repositories, inviter: JudgeInviter, now: () => number = Date.now) {
    const access = new JudgingAccess(repos);
    this.campaigns = new JudgingCampaignService(repos, access, now);
    this.judges = new JudgingJudgeService(repos, access, inviter, now);
    this.results = new JudgingResultsService(repos, access);
    const selection = new PairSelection(repos, (id) => this.results.countedVotes(id), now);
    this.offers = new JudgingOfferService(repos, access, selection, now);
  }

  create(ownerId: string, input: CreateJudgingCampaignInput): Promise<JudgingCampaignView> {
    return this.campaigns.create(ownerId, input);
  }
  list(userId: string): Promise<JudgingCampaignView[]> {
    return this.campaigns.list(userId);
  }
  get(userId: string, id: string): Promise<JudgingCampaignView> {
    return this.campaigns.get(userId, id);
  }
  close(userId: string, id: string): Promise<JudgingCampaignView> {
    return this.campaigns.close(userId, id);
  }
  reveal(userId: string, id: string): Promise<JudgingCampaignView> {
    return this.campaigns.reveal(userId, id);
  }
  delete(userId: string, id: string): Promise<void> {
    return this.campaigns.delete(userId, id);
  }

  listJudges(userId: string, id: string): Promise<JudgeView[]> {
    return this.judges.list(userId, id);
  }
  addJudge(userId: string, id: string, input: AddJudgeInput): Promise<AddedJudge> {
    return this.judges.add(userId, id, input);
  }
  removeJudge(userId: string, id: string, judgeId: string): Promise<void> {
    return this.judges.remove(userId, id, judgeId);
  }

  nextPairs(userId: string, id: string, count = 1): Promise<NextJudgingPairsView> {
    return this.offers.nextPairs(userId, id, count);
  }
  vote(userId: string, id: string, input: CastJudgingVoteInput): Promise<JudgingVoteView> {
    return this.offers.vote(userId, id, input);
  }
  clipVideo(userId: string, id: string, clipId: string): Promise<{ ownerId: string; videoId: string }> {
    return this.offers.clipVideo(userId, id, clipId);
  }

  ratings(userId: string, id: string): Promise<JudgingRatingsView> {
    return this.results.ratings(userId, id);
  }
  agreement(userId: string, id: string): Promise<JudgingAgreementView> {
    return this.results.agreement(userId, id);
  }
  exportVotes(userId: string, id: string): Promise<ExportedVote[]> {
    return this.results.exportVotes(userId, id);
  }
}
