/**
 * Votes as the statistics see them, and the checks and canonical order shared by the ratings and
 * the agreement figures.
 */
import type { PairCounts } from './davidson.js';

/** A judge's answer as the judging page offers it. */
export type Answer = 'left' | 'right' | 'tie' | 'both_bad' | 'skip';

/**
 * One vote. `itemA` / `itemB` are the rated entities (a model id, a run id or a Rank candidate id)
 * of the pair's two clips; `outcome` is relative to A / B (never to the screen's left / right).
 */
export interface VoteRecord {
  pairId: string;
  promptKey: string;
  judgeId: string;
  itemA: string;
  itemB: string;
  outcome: 'a' | 'b' | 'tie' | 'both_bad' | 'skip';
}

const OUTCOMES = new Set(['a', 'b', 'tie', 'both_bad', 'skip']);

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The votes in one canonical order (prompt, pair, judge, items, outcome), whatever order they came in. */
export function canonicalOrder(votes: readonly VoteRecord[]): VoteRecord[] {
  for (const v of votes)
    if (!OUTCOMES.has(v.outcome))
      throw new RangeError(`vote on pair ${v.pairId}: unknown outcome ${JSON.stringify(v.outcome)}`);
  return [...votes].sort(
    (x, y) =>
      byText(x.promptKey, y.promptKey) ||
      byText(x.pairId, y.pairId) ||
      byText(x.judgeId, y.judgeId) ||
      byText(x.itemA, y.itemA) ||
      byText(x.itemB, y.itemB) ||
      byText(x.outcome, y.outcome),
  );
}

/** A vote that enters the ratings: A or B preferred, or a tie, between two different items. */
export function isRatingVote(v: VoteRecord): boolean {
  return (v.outcome === 'a' || v.outcome === 'b' || v.outcome === 'tie') && v.itemA !== v.itemB;
}

/** A decided vote: A or B preferred, between two different items. */
export function isDecided(v: VoteRecord): boolean {
  return (v.outcome === 'a' || v.outcome === 'b') && v.itemA !== v.itemB;
}

/**
 * The resampling unit of each vote: its prompt — or, when every vote is on one prompt (a Rank
 * session's campaign), the vote itself, since there is no second prompt to resample.
 */
export function clusterKeys(votes: readonly VoteRecord[]): string[] {
  const prompts = new Set(votes.map((v) => v.promptKey));
  if (prompts.size >= 2) return votes.map((v) => v.promptKey);
  const width = String(votes.length).length;
  return votes.map((_, index) => `vote ${String(index).padStart(width, '0')}`);
}

/** An index of items, refusing duplicates. */
export function itemIndex(items: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  items.forEach((item, k) => {
    if (index.has(item)) throw new RangeError(`item ${JSON.stringify(item)} is listed twice`);
    index.set(item, k);
  });
  return index;
}

/** Index of a vote's item, or a RangeError naming the vote. */
export function indexOf(index: Map<string, number>, item: string, vote: VoteRecord): number {
  const k = index.get(item);
  if (k === undefined)
    throw new RangeError(`vote on pair ${vote.pairId} names item ${JSON.stringify(item)}, not in the items`);
  return k;
}

/** Unordered pairs of items (i < j) that carry votes, and a lookup from "i,j". */
export class PairIndex {
  readonly i: number[] = [];
  readonly j: number[] = [];
  private readonly byKey = new Map<number, number>();
  constructor(private readonly items: number) {}

  /** The pair's index for items a ≠ b (in either order), added when new. */
  of(a: number, b: number): number {
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    const key = lo * this.items + hi;
    let p = this.byKey.get(key);
    if (p === undefined) {
      p = this.i.length;
      this.byKey.set(key, p);
      this.i.push(lo);
      this.j.push(hi);
    }
    return p;
  }

  /** Empty counts over these pairs. */
  counts(): PairCounts {
    const P = this.i.length;
    return {
      items: this.items,
      i: Int32Array.from(this.i),
      j: Int32Array.from(this.j),
      winsI: new Float64Array(P),
      winsJ: new Float64Array(P),
      ties: new Float64Array(P),
    };
  }
}

/**
 * Adds a rating vote into `counts` with weight `w`: `pair` is its pair's index, and `aIsLow` says
 * whether item A is the pair's lower-indexed item i.
 */
export function addVote(
  counts: PairCounts,
  pair: number,
  aIsLow: boolean,
  outcome: VoteRecord['outcome'],
  w = 1,
): void {
  if (outcome === 'tie') counts.ties[pair]! += w;
  else if ((outcome === 'a') === aIsLow) counts.winsI[pair]! += w;
  else counts.winsJ[pair]! += w;
}
