/**
 * Which pairs a judge is offered next (issue #23): the pairs whose outcome is least certain under
 * the current ratings first (`pairUncertainty`, discounted by the pair's votes and open offers),
 * each pair at most once per judge, up to the campaign's target votes per pair.
 *
 * Ranking every pair of a campaign on every ask is what made the next pair slow, so the ranked
 * order is kept per campaign and process, remade only when the ratings are refitted (the vote
 * count moved and the last fit is at least `SELECTION_REFRESH_MS` old, and at least 20 times its
 * own duration: a slow refit on a big campaign takes at most ~5 % of the process). One ask walks that order
 * and skips the pairs the judge was already offered (read once per ask) and those this process
 * knows to be full. The order and its counts are a hint only: other processes offer and vote too,
 * so the reservation itself is a compare-and-set in SQL (`reservePair`, which also refuses a pair
 * whose clip was deleted) and the judge's own offers are unique in SQL. When the walk finds fewer
 * pairs than asked for, the caller reads the candidates from the database (`candidatePairs`) before
 * it says the judge is done, so a stale hint never hides a pair.
 *
 * Within a run of equally uncertain pairs, each judge starts at a place of their own (a hash of the
 * campaign seed and the judge), so that judges asking at once start on different pairs; a pair this
 * process offered since the order was made (its discount grew) is tried after the untouched ones.
 */
import { performance } from 'node:perf_hooks';
import { pairUncertainty, rate } from '../domain/judging/index.js';
import type { VoteRecord } from '../domain/judging/index.js';
import type { CandidatePair, JudgingCampaignRecord, Repositories } from '../repositories/index.js';
import { fnv } from './judging-access.js';

/** The pair choice refits the ratings (and remakes its order) at most this often per campaign and process. */
export const SELECTION_REFRESH_MS = 1000;
/**
 * …and, on a campaign whose refit is slow (it reads every counted vote), waits at least this many
 * times the last refit's duration before the next, so refitting takes at most ~5 % of the process.
 */
const REFIT_SPACING = 20;
/** Campaigns whose order one process keeps (the least recently refitted is dropped first). */
const KEPT_CAMPAIGNS = 64;

export type SelectablePair = Pick<CandidatePair, 'id' | 'clip_a' | 'clip_b' | 'item_a' | 'item_b'>;

interface Order {
  /** The campaign's vote count when it was made, and when it may be remade once that moved. */
  votes: number;
  due: number;
  /** The ratings (no intervals) it was ranked by. */
  ratings: Map<string, number>;
  /** Pairs that had room, least certain first. */
  pairs: SelectablePair[];
  /** `pairs` in runs of equal uncertainty: the end index of each run. */
  runEnds: number[];
  /** Votes + open offers of each pair when the order was made, and as this process knows it since. */
  loadThen: Int32Array;
  load: Int32Array;
}

/** The answer of one try to take a pair for a judge. */
export type Take = 'taken' | 'full' | 'mine';

export class PairSelection {
  private readonly orders = new Map<string, Order>();
  private readonly refits = new Map<string, Promise<Order>>();

  constructor(
    private readonly repos: Repositories,
    private readonly countedVotes: (campaignId: string) => Promise<VoteRecord[]>,
    private readonly now: () => number,
  ) {}

  /** The current ratings the choice ranks by (refitted as the order is). */
  async ratings(campaign: JudgingCampaignRecord): Promise<Map<string, number>> {
    return (await this.order(campaign)).ratings;
  }

  /** Forget the order of a campaign (the next ask remakes it). */
  forget(campaignId: string): void {
    this.orders.delete(campaignId);
  }

  /**
   * Walks the order for judge `judgeId`, trying `take` on each pair that may still have room and
   * was not offered to them, until `want` pairs were taken. `take` reserves in SQL: `mine` (the
   * pair is the judge's now), `full` (no room), `taken` (the judge got it concurrently).
   */
  async pick(
    campaign: JudgingCampaignRecord,
    judgeId: string,
    offered: ReadonlySet<string>,
    want: number,
    take: (pair: SelectablePair) => Promise<Take>,
  ): Promise<number> {
    if (want <= 0) return 0;
    const o = await this.order(campaign);
    const target = campaign.votes_per_pair;
    const start = fnv(`${campaign.seed}:${judgeId}`);
    const later: number[] = [];
    let got = 0;
    const attempt = async (i: number): Promise<void> => {
      const answer = await take(o.pairs[i]!);
      if (answer === 'mine') {
        o.load[i]! += 1;
        got += 1;
      } else if (answer === 'full') o.load[i] = Math.max(o.load[i]!, target);
    };
    let from = 0;
    for (const end of o.runEnds) {
      const size = end - from;
      for (let k = 0; k < size && got < want; k++) {
        const i = from + ((start + k) % size);
        if (o.load[i]! >= target || offered.has(o.pairs[i]!.id)) continue;
        if (o.load[i]! > o.loadThen[i]!) later.push(i);
        else await attempt(i);
      }
      from = end;
      if (got >= want) return got;
    }
    for (const i of later) {
      if (got >= want) break;
      if (o.load[i]! < target) await attempt(i);
    }
    return got;
  }

  /**
   * Ranks `pairs` for judge `judgeId` by the current ratings (the slow path: every candidate read
   * from the database), ties spread between judges by a hash of the seed, the judge and the pair.
   */
  async rank(
    campaign: JudgingCampaignRecord,
    judgeId: string,
    pairs: CandidatePair[],
  ): Promise<CandidatePair[]> {
    const ratings = await this.ratings(campaign);
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

  private async order(campaign: JudgingCampaignRecord): Promise<Order> {
    const kept = this.orders.get(campaign.id);
    const votes = Number(campaign.n_votes);
    if (kept && (kept.votes === votes || this.now() < kept.due)) return kept;
    let refit = this.refits.get(campaign.id);
    if (!refit) {
      refit = this.make(campaign).finally(() => this.refits.delete(campaign.id));
      this.refits.set(campaign.id, refit);
      // Asks go on with the kept order meanwhile, so nobody may wait for it: a failed refit is
      // tried again by the next ask, and an ask with no order to fall back on gets its error.
      refit.catch(() => undefined);
    }
    return kept ?? refit;
  }

  private async make(campaign: JudgingCampaignRecord): Promise<Order> {
    const at = this.now();
    const started = performance.now();
    const votes = Number(campaign.n_votes);
    const counted = await this.countedVotes(campaign.id);
    const items = (await this.repos.judging.itemsOf(campaign.id)).map((i) => i.item);
    const ratings = new Map<string, number>();
    if (counted.length > 0)
      for (const r of rate(counted, items, { seed: campaign.seed, resamples: 1 }).items)
        ratings.set(r.item, r.rating);
    const gone = new Set(await this.repos.judging.goneClips(campaign.id));
    const of = (item: string): number => ratings.get(item) ?? Number.NaN;
    const ranked = (await this.repos.judging.pairLoads(campaign.id))
      .map((p) => ({ p, load: Number(p.n_votes) + Number(p.n_open) }))
      .filter((x) => x.load < campaign.votes_per_pair && !gone.has(x.p.clip_a) && !gone.has(x.p.clip_b))
      .map((x) => ({
        ...x,
        u: pairUncertainty(of(x.p.item_a), of(x.p.item_b), x.load),
        tie: fnv(`${campaign.seed}:${x.p.id}`),
      }))
      .sort((x, y) => y.u - x.u || x.tie - y.tie);
    const runEnds: number[] = [];
    for (let i = 1; i <= ranked.length; i++)
      if (i === ranked.length || ranked[i]!.u !== ranked[i - 1]!.u) runEnds.push(i);
    const loadThen = Int32Array.from(ranked, (x) => x.load);
    const took = performance.now() - started;
    const order: Order = {
      votes,
      due: at + Math.max(SELECTION_REFRESH_MS, REFIT_SPACING * took),
      ratings,
      pairs: ranked.map((x) => ({
        id: x.p.id,
        clip_a: x.p.clip_a,
        clip_b: x.p.clip_b,
        item_a: x.p.item_a,
        item_b: x.p.item_b,
      })),
      runEnds,
      loadThen,
      load: Int32Array.from(loadThen),
    };
    this.orders.delete(campaign.id);
    this.orders.set(campaign.id, order);
    if (this.orders.size > KEPT_CAMPAIGNS) this.orders.delete(this.orders.keys().next().value!);
    return order;
  }
}
