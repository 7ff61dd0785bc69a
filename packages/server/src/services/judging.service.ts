/**
 * Judging campaigns (issue #23): blind pairwise judgement of a user's own clips.
 *
 * - A campaign is made by its owner from a Rank session's candidates (every pair of candidates:
 *   they share the session's one prompt) or from two or more Bench runs of one prompt suite (for
 *   each prompt, every two runs' clips of the same sample index). Pairs are always two clips of
 *   one prompt from two different items (runs or candidates).
 * - Judges are users of the server added by the owner (by email or user name); an email with no
 *   account waits for one (an admin owner's add makes the invite through the existing flow).
 * - Blinding: a judge reaches the campaign through judging operations only, which show clips
 *   under campaign ids of their own, their bytes through a campaign-scoped path, the prompt and
 *   the question; no model, run, file or score name until the campaign is closed or revealed.
 * - Pairs are offered actively: pairs still short of their target votes and never offered to the
 *   judge, the most useful first (see `rankPairs`); each offer records which clip is on the left
 *   (random per pair and judge), so a left/right answer maps to clip ids.
 * - Votes are append-only; the first vote of a judge on a pair stands (a unique index), a vote
 *   on a pair not offered to the judge, a second vote and a vote after closing are refused with
 *   their own catalogue codes.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type {
  AddJudgeInput,
  CastJudgingVoteInput,
  CreateJudgingCampaignInput,
  JudgeView,
  JudgingAgreementView,
  JudgingCampaignView,
  JudgingRatingsView,
  JudgingOfferView,
  JudgingOutcome,
  JudgingQuestionKind,
  JudgingVoteView,
  NextJudgingPairsView,
} from '../domain/views/judging.js';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type {
  CandidatePair,
  JudgingCampaignRecord,
  JudgingClipRecord,
  JudgingItemRecord,
  JudgingJudgeRecord,
  JudgingOfferRecord,
  JudgingPairRecord,
  Repositories,
  VoteRow,
} from '../repositories/index.js';
import { normaliseEmail } from './account-rules.js';
import { dimensionAgreement, DEFAULT_RESAMPLES, pairUncertainty, rate } from '../domain/judging/index.js';
import type { Ratings, VoteRecord } from '../domain/judging/index.js';
import { publicModelId } from './model-keys.js';

/** The question each kind asks unless the owner words it. */
export const DEFAULT_QUESTIONS: Record<Exclude<JudgingQuestionKind, 'custom'>, string> = {
  overall: 'Which clip is better overall for this prompt?',
  prompt_fit: 'Which clip follows the prompt more faithfully?',
  motion: 'Which clip has the more natural, fluid motion?',
  visual_quality: 'Which clip looks better (sharpness, artefacts, aesthetics)?',
};

/** The pair choice refits the ratings at most this often per campaign and process. */
const SELECTION_REFRESH_MS = 1000;
/** Votes per pair unless the owner says otherwise. */
export const DEFAULT_VOTES_PER_PAIR = 3;
/** A Rank campaign pairs every two candidates: at most this many candidates (19,900 pairs). */
export const MAX_RANK_CANDIDATES = 200;
/** At most this many pairs in one campaign. */
export const MAX_PAIRS = 100_000;
/** At most this many open offers a judge holds (one to answer, the next ones preloaded). */
export const MAX_OPEN_OFFERS = 3;

/** Whoever asks, as the campaign sees them. */
interface Access {
  campaign: JudgingCampaignRecord;
  role: 'owner' | 'judge';
  /** The caller's judge row, when they judge it (not removed). */
  judge: JudgingJudgeRecord | null;
}

/** What the export writes per vote. */
export interface ExportedVote {
  vote_id: string;
  time: string;
  judge: string;
  judge_removed: boolean;
  prompt: string;
  answer: string;
  /** The clip the judge preferred (null for tie, both_bad and skip). */
  winner_clip_id: string | null;
  left_clip_id: string;
  right_clip_id: string;
  /** The clips' videos (null once deleted): `GET /api/v1/videos/{id}/content` reads them. */
  left_video_id: string | null;
  right_video_id: string | null;
  left_item: string;
  right_item: string;
  left_label: string;
  right_label: string;
}

/** A judge added, with the invite made for their email (its token goes into the link the route makes). */
export interface AddedJudge {
  judge: JudgeView;
  invite: { token: string; expiresAt: string } | null;
}

/** Something that can make an invite for an email (the admin's existing invite flow). */
export interface JudgeInviter {
  /** The caller's role: only an admin's add makes an invite. */
  isAdmin(userId: string): Promise<boolean>;
  invite(adminId: string, email: string): Promise<{ token: string; expiresAt: string }>;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/** FNV-1a, 32 bits: a cheap, stable spread of ties between judges. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function clipContentPath(campaignId: string, clipId: string): string {
  return `/api/v1/judging/campaigns/${campaignId}/clips/${clipId}/content`;
}

export class JudgingService {
  constructor(
    private readonly repos: Repositories,
    private readonly inviter: JudgeInviter,
    private readonly now: () => number = Date.now,
  ) {}

  // ---- access ------------------------------------------------------------------------------------

  /** The caller's access to campaign `id`: 404 for no such campaign, 403 for someone else's. */
  private async access(userId: string, id: string): Promise<Access> {
    const owned = await this.repos.judging.campaignOfOwner(userId, id);
    const asJudge = await this.repos.judging.campaignOfJudge(userId, id);
    const judge = asJudge && asJudge.judge.removed_at === null ? asJudge.judge : null;
    if (owned) return { campaign: owned, role: 'owner', judge };
    if (asJudge) {
      if (!judge) throw forbidden(`you were removed as a judge of judging campaign '${id}'`);
      return { campaign: asJudge.campaign, role: 'judge', judge };
    }
    if (await this.repos.judging.exists(id))
      throw forbidden(`judging campaign '${id}' belongs to another user`);
    throw notFound(`judging campaign '${id}'`);
  }

  private async owner(userId: string, id: string): Promise<JudgingCampaignRecord> {
    const a = await this.access(userId, id);
    if (a.role !== 'owner') throw forbidden(`only the owner of judging campaign '${id}' may do this`);
    return a.campaign;
  }

  private async judging(
    userId: string,
    id: string,
  ): Promise<{ campaign: JudgingCampaignRecord; judge: JudgingJudgeRecord }> {
    const a = await this.access(userId, id);
    if (!a.judge)
      throw forbidden(
        `you are not a judge of judging campaign '${id}' (its owner may add themselves as a judge)`,
      );
    return { campaign: a.campaign, judge: a.judge };
  }

  // ---- campaigns ---------------------------------------------------------------------------------

  async create(ownerId: string, input: CreateJudgingCampaignInput): Promise<JudgingCampaignView> {
    const name = input.name.trim();
    if (name === '') throw validationFailed('name must not be empty');
    const kind = input.question?.kind ?? 'overall';
    const wording = input.question?.text?.trim();
    if (kind === 'custom' && !wording) throw validationFailed('a custom question needs its text');
    const question = wording || DEFAULT_QUESTIONS[kind as Exclude<JudgingQuestionKind, 'custom'>];
    const hasRank = input.rankSessionId !== undefined;
    const hasBench = input.benchRunIds !== undefined;
    if (hasRank === hasBench) throw validationFailed('give exactly one of rankSessionId and benchRunIds');
    const id = randomUUID();
    const plan = hasRank
      ? await this.planRank(ownerId, id, input.rankSessionId!)
      : await this.planBench(ownerId, id, input.benchRunIds!);
    const t = this.now();
    const campaign: JudgingCampaignRecord = {
      id,
      owner_id: ownerId,
      name,
      question_kind: kind,
      question,
      source_kind: hasRank ? 'rank' : 'bench',
      source_ids: JSON.stringify(hasRank ? [input.rankSessionId] : input.benchRunIds),
      votes_per_pair: input.votesPerPair ?? DEFAULT_VOTES_PER_PAIR,
      status: 'open',
      seed: randomBytes(16).toString('hex'),
      n_votes: 0,
      created_at: t,
      closed_at: null,
      revealed_at: null,
    };
    await this.repos.transaction((tx) =>
      tx.judging.insertCampaign(campaign, plan.items, plan.clips, plan.pairs),
    );
    return this.view(campaign, 'owner', null);
  }

  private async planRank(ownerId: string, campaignId: string, sessionId: string): Promise<Plan> {
    const session = await this.repos.sessions.byId(sessionId);
    if (!session || session.kind === 'bench') throw notFound(`rank session '${sessionId}'`);
    if (session.user_id !== ownerId) throw forbidden(`rank session '${sessionId}' belongs to another user`);
    if (session.kind !== 'rank')
      throw validationFailed(`'${sessionId}' is a ${session.kind} session, not a Rank session`);
    const candidates = await this.repos.judging.rankClipsOfOwner(ownerId, sessionId);
    if (candidates.length < 2)
      throw validationFailed(
        `a campaign needs at least two clips of one prompt: Rank session '${sessionId}' has ${candidates.length} uploaded candidate${candidates.length === 1 ? '' : 's'}`,
      );
    if (candidates.length > MAX_RANK_CANDIDATES)
      throw validationFailed(
        `a Rank campaign pairs every two candidates: at most ${MAX_RANK_CANDIDATES} candidates (this session has ${candidates.length})`,
      );
    const prompt = session.prompt ?? candidates.find((c) => c.prompt !== null)?.prompt ?? '';
    const items: JudgingItemRecord[] = candidates.map((c, i) => ({
      campaign_id: campaignId,
      item: c.video_id,
      label: c.file_name,
      ordinal: i,
    }));
    const clips: JudgingClipRecord[] = candidates.map((c) => ({
      id: randomUUID(),
      campaign_id: campaignId,
      video_id: c.video_id,
      item: c.video_id,
      prompt_key: 'rank',
      prompt,
      sample_index: 0,
    }));
    const pairs: NewPair[] = [];
    for (let i = 0; i < clips.length; i++)
      for (let j = i + 1; j < clips.length; j++) pairs.push(newPair(campaignId, clips[i]!, clips[j]!));
    return { items, clips, pairs };
  }

  private async planBench(ownerId: string, campaignId: string, runIds: string[]): Promise<Plan> {
    if (new Set(runIds).size !== runIds.length) throw validationFailed('benchRunIds names a run twice');
    if (runIds.length < 2)
      throw validationFailed(
        'a campaign from Bench runs needs at least two runs (pairs compare two runs on one prompt)',
      );
    const runs = [];
    for (const runId of runIds) {
      const run = await this.repos.benchRuns.byId(runId);
      if (!run) throw notFound(`bench run '${runId}'`);
      if (run.user_id !== ownerId) throw forbidden(`bench run '${runId}' belongs to another user`);
      runs.push(run);
    }
    const suites = new Set(runs.map((r) => r.suite_version));
    if (suites.size > 1)
      throw validationFailed(
        `the runs were planned from different prompt suites (${[...suites].map((s) => s ?? 'unrecorded').join(', ')}): pairs need the same prompts`,
      );
    const found = await this.repos.judging.benchClipsOfOwner(ownerId, runIds);
    const byKey = new Map<string, Map<string, (typeof found)[number]>>();
    for (const c of found) {
      const key = `${c.prompt_id ?? c.prompt}\u0000${c.sample_index}`;
      const of = byKey.get(key) ?? new Map<string, (typeof found)[number]>();
      of.set(c.run_id, c);
      byKey.set(key, of);
    }
    const items: JudgingItemRecord[] = runs.map((r, i) => ({
      campaign_id: campaignId,
      item: r.id,
      label: `${publicModelId(r.model_id)} · ${r.name}`,
      ordinal: i,
    }));
    const clips: JudgingClipRecord[] = [];
    const pairs: NewPair[] = [];
    for (const of of byKey.values()) {
      const present = runs.filter((r) => of.has(r.id));
      if (present.length < 2) continue;
      const made = present.map((r) => {
        const c = of.get(r.id)!;
        const clip: JudgingClipRecord = {
          id: randomUUID(),
          campaign_id: campaignId,
          video_id: c.video_id,
          item: r.id,
          prompt_key: c.prompt_id ?? c.prompt,
          prompt: c.prompt,
          sample_index: c.sample_index,
        };
        clips.push(clip);
        return clip;
      });
      for (let i = 0; i < made.length; i++)
        for (let j = i + 1; j < made.length; j++) pairs.push(newPair(campaignId, made[i]!, made[j]!));
      if (pairs.length > MAX_PAIRS)
        throw validationFailed(`the campaign would have more than ${MAX_PAIRS} pairs: choose fewer runs`);
    }
    if (pairs.length === 0)
      throw validationFailed(
        'the runs have no prompt with a generated clip in two of them: a campaign needs at least two clips of one prompt',
      );
    return { items, clips, pairs };
  }

  async list(userId: string): Promise<JudgingCampaignView[]> {
    const rows = await this.repos.judging.listForUser(userId);
    const out: JudgingCampaignView[] = [];
    for (const r of rows) {
      const role = r.owner_id === userId ? 'owner' : 'judge';
      const judge = r.judge_id === null ? null : await this.repos.judging.judge(r.id, r.judge_id);
      out.push(await this.view(r, role, judge ?? null));
    }
    return out;
  }

  async get(userId: string, id: string): Promise<JudgingCampaignView> {
    const a = await this.access(userId, id);
    return this.view(a.campaign, a.role, a.judge);
  }

  async close(userId: string, id: string): Promise<JudgingCampaignView> {
    const c = await this.owner(userId, id);
    await this.repos.judging.close(userId, id, this.now());
    return this.get(userId, c.id);
  }

  async reveal(userId: string, id: string): Promise<JudgingCampaignView> {
    await this.owner(userId, id);
    await this.repos.judging.reveal(userId, id, this.now());
    return this.get(userId, id);
  }

  async delete(userId: string, id: string): Promise<void> {
    await this.owner(userId, id);
    await this.repos.transaction((tx) => tx.judging.deleteOfOwner(userId, id));
  }

  private async view(
    c: JudgingCampaignRecord,
    role: 'owner' | 'judge',
    judge: JudgingJudgeRecord | null,
  ): Promise<JudgingCampaignView> {
    const namesVisible = role === 'owner' || c.status === 'closed' || c.revealed_at !== null;
    const progress = await this.repos.judging.progressOf(c.id);
    const judges = await this.repos.judging.judgesOf(c.id);
    let items: JudgingCampaignView['items'] = null;
    if (namesVisible) {
      const clips = await this.repos.judging.clipsOf(c.id);
      const count = new Map<string, number>();
      for (const clip of clips) count.set(clip.item, (count.get(clip.item) ?? 0) + 1);
      items = (await this.repos.judging.itemsOf(c.id)).map((i) => ({
        id: i.item,
        label: i.label,
        clips: count.get(i.item) ?? 0,
      }));
    }
    return {
      id: c.id,
      name: c.name,
      role,
      isJudge: judge !== null,
      question: { kind: c.question_kind, text: c.question },
      status: c.status,
      votesPerPair: c.votes_per_pair,
      createdAt: iso(c.created_at)!,
      closedAt: iso(c.closed_at),
      revealedAt: iso(c.revealed_at),
      namesVisible,
      source: namesVisible ? { kind: c.source_kind, ids: JSON.parse(c.source_ids) as string[] } : null,
      items,
      progress: {
        pairs: progress.pairs,
        pairsComplete: progress.pairs_complete,
        clips: progress.clips,
        clipsDeleted: progress.clips_deleted,
        votes: Number(c.n_votes),
        judges: judges.filter((j) => j.removed_at === null).length,
        yourVotes: judge ? await this.repos.judging.countVotesOf(judge.id) : 0,
      },
    };
  }

  // ---- judges ------------------------------------------------------------------------------------

  async listJudges(userId: string, id: string): Promise<JudgeView[]> {
    const c = await this.owner(userId, id);
    const judges = await this.repos.judging.judgesOf(c.id);
    return Promise.all(judges.map((j) => this.judgeView(j)));
  }

  private async judgeView(j: JudgingJudgeRecord): Promise<JudgeView> {
    const account = j.user_id === null ? null : await this.repos.users.account(j.user_id).catch(() => null);
    return {
      id: j.id,
      pseudonym: j.pseudonym,
      userName: account?.name ?? null,
      email: account?.email ?? j.email,
      status: j.removed_at !== null ? 'removed' : j.user_id === null ? 'invited' : 'active',
      addedAt: iso(j.added_at)!,
      removedAt: iso(j.removed_at),
      votes: await this.repos.judging.countVotesOf(j.id),
    };
  }

  /**
   * Adds a judge by email or user name. An email with no account becomes an `invited` judge; when
   * the caller is an admin an invite is made for it (the existing flow), and the judge is bound to
   * the account that accepts it. Adding a judge again answers the same judge; re-adding a removed
   * judge restores them (and their votes count again).
   */
  async addJudge(userId: string, id: string, input: AddJudgeInput): Promise<AddedJudge> {
    const c = await this.owner(userId, id);
    if (c.status === 'closed') throw new AppError('judging_closed', `judging campaign '${id}' is closed`);
    if ((input.email === undefined) === (input.userName === undefined))
      throw validationFailed('give exactly one of email and userName');
    let user: { id: string } | undefined;
    let email: string | null = null;
    if (input.email !== undefined) {
      email = normaliseEmail(input.email);
      user = await this.repos.users.byEmail(email);
    } else {
      user = await this.repos.users.byName(input.userName!);
      if (!user) throw notFound(`user '${input.userName}'`);
    }
    const existing = await this.repos.judging.judgeByUserOrEmail(c.id, user?.id ?? null, email);
    if (existing) {
      if (existing.removed_at !== null) await this.repos.judging.restoreJudge(existing.id);
      const again = (await this.repos.judging.judge(c.id, existing.id))!;
      return { judge: await this.judgeView(again), invite: null };
    }
    const row: JudgingJudgeRecord = {
      id: randomUUID(),
      campaign_id: c.id,
      user_id: user?.id ?? null,
      email: user ? null : email,
      pseudonym: `judge-${(await this.repos.judging.countJudges(c.id)) + 1}`,
      added_at: this.now(),
      removed_at: null,
    };
    await this.repos.judging.insertJudge(row);
    let invite: AddedJudge['invite'] = null;
    if (!user && email !== null && (await this.inviter.isAdmin(userId)))
      invite = await this.inviter.invite(userId, email);
    return { judge: await this.judgeView(row), invite };
  }

  /**
   * Removes a judge: they lose access at once and their open offers are withdrawn. Their votes are
   * kept (append-only, and in the export marked `judge_removed`) but no longer count in ratings or
   * agreement; adding the judge again makes them count again.
   */
  async removeJudge(userId: string, id: string, judgeId: string): Promise<void> {
    const c = await this.owner(userId, id);
    const judge = await this.repos.judging.judge(c.id, judgeId);
    if (!judge) throw notFound(`judge '${judgeId}' of judging campaign '${id}'`);
    await this.repos.transaction((tx) => tx.judging.removeJudge(judge.id, this.now()));
  }

  // ---- judging -----------------------------------------------------------------------------------

  /**
   * The caller's open offers (oldest first), topped up to `count` with new ones: pairs still
   * short of their votes, never offered to this judge, whose clips both still exist, best first.
   * Asking again without voting answers the same offers.
   */
  async nextPairs(userId: string, id: string, count = 1): Promise<NextJudgingPairsView> {
    const { campaign, judge } = await this.judging(userId, id);
    if (campaign.status === 'closed')
      throw new AppError('judging_closed', `judging campaign '${id}' is closed`);
    const want = Math.min(Math.max(1, count), MAX_OPEN_OFFERS);
    const gone = new Set(await this.repos.judging.goneClips(campaign.id));
    const t = this.now();
    const open: JudgingOfferRecord[] = [];
    for (const o of await this.repos.judging.openOffersOf(judge.id)) {
      if (gone.has(o.left_clip) || gone.has(o.right_clip)) {
        await this.repos.transaction((tx) => tx.judging.voidOffer(o.id, t));
        continue;
      }
      open.push(o);
    }
    let done = false;
    if (open.length < want) {
      const candidates = (
        await this.repos.judging.candidatePairs(campaign.id, judge.id, campaign.votes_per_pair)
      ).filter((p) => !gone.has(p.clip_a) && !gone.has(p.clip_b));
      const ranked = this.rankPairs(campaign, judge.id, candidates, await this.selectionRatings(campaign));
      for (const pair of ranked) {
        if (open.length >= want) break;
        const offer = await this.repos
          .transaction(async (tx) => {
            if (!(await tx.judging.reservePair(pair.id, campaign.votes_per_pair))) return undefined;
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
            if (e instanceof PairTaken) return undefined;
            throw e;
          });
        if (offer) open.push(offer);
      }
      done = open.length === 0;
    }
    // Oldest first, as `openOffersOf` reads them: the same order on every ask.
    open.sort(
      (x, y) => Number(x.offered_at) - Number(y.offered_at) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
    );
    const prompts = await this.promptsOf(campaign.id, open);
    return {
      offers: open.slice(0, Math.max(want, open.length)).map((o) => this.offerView(campaign, o, prompts)),
      done,
      yourVotes: await this.repos.judging.countVotesOf(judge.id),
    };
  }

  /**
   * The order pairs are offered in: least certain outcome first — `pairUncertainty` of the two
   * items' current ratings, discounted by the pair's votes and open offers — ties spread between
   * judges by a hash of the campaign seed, the judge and the pair, so that judges asking at once
   * start on different pairs.
   */
  private rankPairs(
    campaign: JudgingCampaignRecord,
    judgeId: string,
    pairs: CandidatePair[],
    ratings: Map<string, number>,
  ): CandidatePair[] {
    const salt = `${campaign.seed}:${judgeId}:`;
    const of = (item: string): number => ratings.get(item) ?? Number.NaN;
    return pairs
      .map((p) => ({
        p,
        u: pairUncertainty(of(p.item_a), of(p.item_b), Number(p.n_votes) + Number(p.n_open)),
        tie: fnv(salt + p.id),
      }))
      .sort((x, y) => y.u - x.u || x.tie - y.tie)
      .map((x) => x.p);
  }

  /**
   * The current ratings (no intervals) the pair choice reads, per process, refitted when the
   * campaign's vote count moved and the last fit is older than a second.
   */
  private async selectionRatings(campaign: JudgingCampaignRecord): Promise<Map<string, number>> {
    const cached = this.selection.get(campaign.id);
    const t = this.now();
    if (cached && (cached.votes === Number(campaign.n_votes) || t - cached.at < SELECTION_REFRESH_MS))
      return cached.ratings;
    const votes = await this.countedVotes(campaign.id);
    const items = (await this.repos.judging.itemsOf(campaign.id)).map((i) => i.item);
    const ratings = new Map<string, number>();
    if (votes.length > 0)
      for (const r of rate(votes, items, { seed: campaign.seed, resamples: 1 }).items)
        ratings.set(r.item, r.rating);
    this.selection.set(campaign.id, { at: t, votes: Number(campaign.n_votes), ratings });
    return ratings;
  }

  private readonly selection = new Map<string, { at: number; votes: number; ratings: Map<string, number> }>();

  // ---- ratings and agreement ---------------------------------------------------------------------

  /** The votes that count (removed judges' left out), as the statistics read them. */
  private async countedVotes(campaignId: string): Promise<VoteRecord[]> {
    return (await this.repos.judging.votesOf(campaignId))
      .filter((v) => v.judge_removed_at === null)
      .map((v) => ({
        pairId: v.pair_id,
        promptKey: v.prompt_key,
        judgeId: v.pseudonym,
        itemA: v.item_a,
        itemB: v.item_b,
        outcome: v.outcome,
      }));
  }

  /**
   * Ratings with 95 % intervals (Bradley–Terry with ties, prompt bootstrap), the win matrix and
   * each judge's agreement, recomputed from the votes (removed judges' left out). The owner
   * always; a judge once the campaign is closed or revealed (without the per-judge figures).
   */
  async ratings(userId: string, id: string): Promise<JudgingRatingsView> {
    const a = await this.access(userId, id);
    const c = a.campaign;
    if (a.role !== 'owner' && c.status !== 'closed' && c.revealed_at === null)
      throw forbidden(
        `the ratings of judging campaign '${id}' are shown to judges once it is closed or revealed`,
      );
    const all = await this.repos.judging.votesOf(c.id);
    const votes = await this.countedVotes(c.id);
    const items = await this.repos.judging.itemsOf(c.id);
    const labels = new Map(items.map((i) => [i.item, i.label]));
    const r: Ratings = rate(
      votes,
      items.map((i) => i.item),
      { seed: c.seed, resamples: DEFAULT_RESAMPLES },
    );
    const winMatrix: JudgingRatingsView['winMatrix'] = [];
    for (const [item, row] of Object.entries(r.winMatrix))
      for (const [opponent, cell] of Object.entries(row)) winMatrix.push({ item, opponent, ...cell });
    return {
      campaignId: c.id,
      votes: votes.length,
      votesExcluded: all.length - votes.length,
      resamples: DEFAULT_RESAMPLES,
      items: r.items.map((i) => ({
        item: i.item,
        label: labels.get(i.item) ?? i.item,
        rating: finite(i.rating),
        ci95Low: finite(i.ci95Low),
        ci95High: finite(i.ci95High),
        votes: i.votes,
        wins: i.wins,
        losses: i.losses,
        ties: i.ties,
      })),
      winMatrix,
      judges:
        a.role === 'owner'
          ? r.judges.map((j) => ({
              judge: j.judgeId,
              votes: j.votes,
              agreement: j.agreement === null ? null : finite(j.agreement),
              belowChance: j.belowChance,
            }))
          : null,
    };
  }

  /**
   * For every scored dimension: how often it prefers the clip people preferred (with an interval)
   * and Kendall τ between its per-item order and the ratings; and the fitted team score (labelled
   * as fitted to this campaign, never replacing VBench's Total). The owner only.
   */
  async agreement(userId: string, id: string): Promise<JudgingAgreementView> {
    const c = await this.owner(userId, id);
    const rows = (await this.repos.judging.votesOf(c.id)).filter((v) => v.judge_removed_at === null);
    const votes = await this.countedVotes(c.id);
    const items = (await this.repos.judging.itemsOf(c.id)).map((i) => i.item);
    const clips = await this.repos.judging.clipsOf(c.id);
    const itemOfClip = new Map(clips.map((x) => [x.id, x.item]));
    const clipScores: Record<string, Record<string, number>> = {};
    for (const s of await this.repos.judging.clipScoresOf(c.id))
      (clipScores[s.clip_id] ??= {})[s.dimension] = Number(s.value);
    // An item's score of a dimension: the mean over its clips in the campaign.
    const sums: Record<string, Record<string, { sum: number; n: number }>> = {};
    for (const [clipId, dims] of Object.entries(clipScores)) {
      const item = itemOfClip.get(clipId);
      if (item === undefined) continue;
      for (const [d, v] of Object.entries(dims)) {
        const cell = ((sums[item] ??= {})[d] ??= { sum: 0, n: 0 });
        cell.sum += v;
        cell.n += 1;
      }
    }
    const itemScores: Record<string, Record<string, number>> = {};
    for (const [item, dims] of Object.entries(sums))
      for (const [d, { sum, n }] of Object.entries(dims)) (itemScores[item] ??= {})[d] = sum / n;
    const ratings: Record<string, number> = {};
    if (votes.length > 0)
      for (const r of rate(votes, items, { seed: c.seed, resamples: 1 }).items) ratings[r.item] = r.rating;
    const pairClips = new Map(rows.map((v) => [v.pair_id, { a: v.clip_a, b: v.clip_b }]));
    const result = dimensionAgreement({
      votes,
      clipScores,
      clipOf: (vote, side) => pairClips.get(vote.pairId)![side],
      items,
      ratings,
      itemScores,
      seed: c.seed,
    });
    return {
      campaignId: c.id,
      votes: votes.length,
      dimensions: result.dimensions.map((d) => ({
        dimension: d.dimension,
        pairs: d.pairs,
        agreement: finite(d.agreement),
        ci95Low: finite(d.ci95Low),
        ci95High: finite(d.ci95High),
        kendallTau: d.kendallTau,
      })),
      fitted: result.fitted,
    };
  }

  private async promptsOf(campaignId: string, offers: JudgingOfferRecord[]): Promise<Map<string, string>> {
    const prompts = new Map<string, string>();
    for (const o of offers) {
      if (prompts.has(o.left_clip)) continue;
      const clip = await this.repos.judging.clip(campaignId, o.left_clip);
      prompts.set(o.left_clip, clip?.prompt ?? '');
    }
    return prompts;
  }

  private offerView(
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

  async vote(userId: string, id: string, input: CastJudgingVoteInput): Promise<JudgingVoteView> {
    const { campaign, judge } = await this.judging(userId, id);
    if (campaign.status === 'closed')
      throw new AppError('judging_closed', `judging campaign '${id}' is closed: it takes no more votes`);
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
      if (now.campaign.status === 'closed')
        throw new AppError('judging_closed', `judging campaign '${id}' is closed: it takes no more votes`);
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
    const a = await this.access(userId, id);
    const clip = await this.repos.judging.clip(a.campaign.id, clipId);
    const missing = notFound(`clip '${clipId}' of judging campaign '${id}'`);
    if (!clip) throw missing;
    if (a.role !== 'owner' && !(a.judge && (await this.repos.judging.clipOfferedTo(a.judge.id, clip.id))))
      throw missing;
    if (clip.video_id === null) throw missing;
    return { ownerId: a.campaign.owner_id, videoId: clip.video_id };
  }

  // ---- export ------------------------------------------------------------------------------------

  /** Every vote of the campaign (the owner's), oldest first, with clip ids, prompt and judge pseudonym. */
  async exportVotes(userId: string, id: string): Promise<ExportedVote[]> {
    const c = await this.owner(userId, id);
    const votes = await this.repos.judging.votesOf(c.id);
    const clips = new Map((await this.repos.judging.clipsOf(c.id)).map((x) => [x.id, x]));
    const labels = new Map((await this.repos.judging.itemsOf(c.id)).map((i) => [i.item, i.label]));
    return votes.map((v) => exported(v, clips, labels));
  }
}

class PairTaken extends Error {}

/** NaN (the statistics' "no value") as null. */
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

type NewPair = Omit<JudgingPairRecord, 'n_votes' | 'n_open'>;
interface Plan {
  items: JudgingItemRecord[];
  clips: JudgingClipRecord[];
  pairs: NewPair[];
}

function newPair(campaignId: string, a: JudgingClipRecord, b: JudgingClipRecord): NewPair {
  return {
    id: randomUUID(),
    campaign_id: campaignId,
    clip_a: a.id,
    clip_b: b.id,
    item_a: a.item,
    item_b: b.item,
    prompt_key: a.prompt_key,
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

function exported(
  v: VoteRow,
  clips: Map<string, JudgingClipRecord>,
  labels: Map<string, string>,
): ExportedVote {
  const left = clips.get(v.left_clip);
  const right = clips.get(v.right_clip);
  const leftItem = left?.item ?? '';
  const rightItem = right?.item ?? '';
  return {
    vote_id: v.id,
    time: iso(v.created_at)!,
    judge: v.pseudonym,
    judge_removed: v.judge_removed_at !== null,
    prompt: left?.prompt ?? '',
    answer: v.answer,
    winner_clip_id: v.answer === 'left' ? v.left_clip : v.answer === 'right' ? v.right_clip : null,
    left_clip_id: v.left_clip,
    right_clip_id: v.right_clip,
    left_video_id: left?.video_id ?? null,
    right_video_id: right?.video_id ?? null,
    left_item: leftItem,
    right_item: rightItem,
    left_label: labels.get(leftItem) ?? '',
    right_label: labels.get(rightItem) ?? '',
  };
}

export const EXPORT_COLUMNS: (keyof ExportedVote)[] = [
  'vote_id',
  'time',
  'judge',
  'judge_removed',
  'prompt',
  'answer',
  'winner_clip_id',
  'left_clip_id',
  'right_clip_id',
  'left_video_id',
  'right_video_id',
  'left_item',
  'right_item',
  'left_label',
  'right_label',
];

/** RFC 4180 CSV, with a header row. */
export function votesCsv(votes: ExportedVote[]): string {
  const cell = (v: string | boolean | null): string => {
    const s = v === null ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [EXPORT_COLUMNS.join(','), ...votes.map((v) => EXPORT_COLUMNS.map((c) => cell(v[c])).join(','))]
    .map((l) => `${l}\r\n`)
    .join('');
}

export function votesJsonl(votes: ExportedVote[]): string {
  return votes.map((v) => `${JSON.stringify(v)}\n`).join('');
}
