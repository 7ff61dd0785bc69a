/**
 * Judging campaigns (issue #23): what the votes say — ratings with intervals, the win matrix,
 * per-judge agreement, agreement with the automated dimensions — and the export of the votes.
 *
 * Ratings and agreement are recomputed from the votes (removed judges' left out), which costs a
 * bootstrap; the answer is kept per campaign and process under a key of everything it depends on,
 * read fresh on every GET: the campaign's vote count (votes are append-only, so the count names
 * the set), each judge's removed-or-not state (a removal or re-add changes which votes count), the
 * deleted clips, and for agreement the clips' scores themselves. A new vote, a removal or a
 * deletion changes the key, so a kept answer is never a stale one; several processes each keep
 * their own. Who may see what (owner, judge once closed or revealed) is checked before the cache.
 */
import { createHash } from 'node:crypto';
import type { JudgingAgreementView, JudgingRatingsView } from '../domain/views/judging.js';
import { dimensionAgreement, DEFAULT_RESAMPLES, rate } from '../domain/judging/index.js';
import type { Ratings, VoteRecord } from '../domain/judging/index.js';
import { forbidden } from '../errors.js';
import type { JudgingCampaignRecord, Repositories } from '../repositories/index.js';
import { finite } from './judging-access.js';
import type { JudgingAccess } from './judging-access.js';
import { exported } from './judging-export.js';
import type { ExportedVote } from './judging-export.js';

/** Campaigns whose answers one process keeps (the least recently computed is dropped first). */
const KEPT_CAMPAIGNS = 32;

/** A small keyed store: one answer per campaign, the oldest campaign dropped past `KEPT_CAMPAIGNS`. */
class Kept<T> {
  private readonly byCampaign = new Map<string, { key: string; value: T }>();
  get(campaignId: string, key: string): T | undefined {
    const e = this.byCampaign.get(campaignId);
    return e && e.key === key ? e.value : undefined;
  }
  set(campaignId: string, key: string, value: T): void {
    this.byCampaign.delete(campaignId);
    this.byCampaign.set(campaignId, { key, value });
    if (this.byCampaign.size > KEPT_CAMPAIGNS) this.byCampaign.delete(this.byCampaign.keys().next().value!);
  }
}

export class JudgingResultsService {
  private readonly keptRatings = new Kept<JudgingRatingsView>();
  private readonly keptAgreement = new Kept<JudgingAgreementView>();

  constructor(
    private readonly repos: Repositories,
    private readonly access: JudgingAccess,
  ) {}

  /** The votes that count (removed judges' left out), as the statistics read them. */
  async countedVotes(campaignId: string): Promise<VoteRecord[]> {
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

  /** What ratings and agreement depend on besides the scores, read fresh (small reads). */
  private async keyOf(c: JudgingCampaignRecord): Promise<string> {
    const judges = (await this.repos.judging.judgesOf(c.id))
      .map((j) => `${j.id}:${j.removed_at === null ? 'in' : 'out'}`)
      .join(',');
    const gone = (await this.repos.judging.goneClips(c.id)).sort().join(',');
    return `votes=${Number(c.n_votes)}|judges=${judges}|gone=${gone}`;
  }

  /**
   * Ratings with 95 % intervals (Bradley–Terry with ties, prompt bootstrap), the win matrix and
   * each judge's agreement, recomputed from the votes (removed judges' left out). The owner
   * always; a judge once the campaign is closed or revealed (without the per-judge figures).
   */
  async ratings(userId: string, id: string): Promise<JudgingRatingsView> {
    const a = await this.access.of(userId, id);
    const c = a.campaign;
    if (a.role !== 'owner' && c.status !== 'closed' && c.revealed_at === null)
      throw forbidden(
        `the ratings of judging campaign '${id}' are shown to judges once it is closed or revealed`,
      );
    const key = await this.keyOf(c);
    let full = this.keptRatings.get(c.id, key);
    if (!full) {
      full = await this.computeRatings(c);
      this.keptRatings.set(c.id, key, full);
    }
    return a.role === 'owner' ? full : { ...full, judges: null };
  }

  private async computeRatings(c: JudgingCampaignRecord): Promise<JudgingRatingsView> {
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
      judges: r.judges.map((j) => ({
        judge: j.judgeId,
        votes: j.votes,
        agreement: j.agreement === null ? null : finite(j.agreement),
        belowChance: j.belowChance,
      })),
    };
  }

  /**
   * For every scored dimension: how often it prefers the clip people preferred (with an interval)
   * and Kendall τ between its per-item order and the ratings; and the fitted team score (labelled
   * as fitted to this campaign, never replacing VBench's Total). The owner only.
   */
  async agreement(userId: string, id: string): Promise<JudgingAgreementView> {
    const c = await this.access.owner(userId, id);
    const scores = await this.repos.judging.clipScoresOf(c.id);
    const digest = createHash('sha256');
    for (const s of [...scores].sort((x, y) =>
      x.clip_id < y.clip_id ? -1 : x.clip_id > y.clip_id ? 1 : x.dimension < y.dimension ? -1 : 1,
    ))
      digest.update(`${s.clip_id}\u0000${s.dimension}\u0000${Number(s.value)}\n`);
    const key = `${await this.keyOf(c)}|scores=${digest.digest('hex')}`;
    const kept = this.keptAgreement.get(c.id, key);
    if (kept) return kept;
    const computed = await this.computeAgreement(c, scores);
    this.keptAgreement.set(c.id, key, computed);
    return computed;
  }

  private async computeAgreement(
    c: JudgingCampaignRecord,
    scores: { clip_id: string; dimension: string; value: number }[],
  ): Promise<JudgingAgreementView> {
    const rows = (await this.repos.judging.votesOf(c.id)).filter((v) => v.judge_removed_at === null);
    const votes = await this.countedVotes(c.id);
    const items = (await this.repos.judging.itemsOf(c.id)).map((i) => i.item);
    const clips = await this.repos.judging.clipsOf(c.id);
    const itemOfClip = new Map(clips.map((x) => [x.id, x.item]));
    const clipScores: Record<string, Record<string, number>> = {};
    for (const s of scores) (clipScores[s.clip_id] ??= {})[s.dimension] = Number(s.value);
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

  /** Every vote of the campaign (the owner's), oldest first, with clip ids, prompt and judge pseudonym. */
  async exportVotes(userId: string, id: string): Promise<ExportedVote[]> {
    const c = await this.access.owner(userId, id);
    const votes = await this.repos.judging.votesOf(c.id);
    const clips = new Map((await this.repos.judging.clipsOf(c.id)).map((x) => [x.id, x]));
    const labels = new Map((await this.repos.judging.itemsOf(c.id)).map((i) => [i.item, i.label]));
    return votes.map((v) => exported(v, clips, labels));
  }
}
