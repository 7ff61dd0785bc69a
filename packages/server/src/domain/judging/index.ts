/**
 * Statistics of human judgement (issue #23): pure functions on votes, no I/O.
 *
 * - `rate`: Bradley–Terry with ties (Davidson's model, davidson.ts) per item — a model, run or Rank
 *   candidate — with 95 % intervals from the prompt bootstrap of `domain/statistics`, the win
 *   matrix, and each judge's agreement with the others (ratings.ts).
 * - `estimateRatings`: the same ratings without intervals (one fit), for choosing pairs often.
 * - `pairUncertainty`: the active pair selection's priority (uncertainty.ts).
 * - `dimensionAgreement`: how often each automated dimension prefers the clip people chose, Kendall
 *   τ-b against the ratings, and a team score fitted to the votes (agreement.ts).
 *
 * Conventions for callers:
 * - `rating` is a natural-log strength with mean 0 over the rated items: a difference of 1 means
 *   odds of e ≈ 2.7 : 1 of being preferred (ties aside).
 * - NaN stands for "no value" in `rating`, `ci95Low`, `ci95High`, `agreement` (JSON.stringify
 *   writes it as null; an API should say null): an item with no rating votes, an interval with
 *   one resampling unit, a dimension without decided votes.
 * - Every random number is drawn from a stream named by `seed` (e.g. the campaign id): the same
 *   votes and seed give the same figures, whatever order the votes come in.
 *
 * docs/statistics.md ("Human judgement") states the methods and what the simulation measured.
 */
export type { Answer, VoteRecord } from './votes.js';
export { rate, estimateRatings, binomialLowerTail, DEFAULT_RESAMPLES } from './ratings.js';
export type { ItemRating, JudgeAgreement, RatingOptions, Ratings, WinCell } from './ratings.js';
export { pairUncertainty } from './uncertainty.js';
export { dimensionAgreement, kendallTauB, FITTED_LABEL, MIN_FIT_VOTES } from './agreement.js';
export type { DimensionAgreement, DimensionAgreementInput, DimensionRow, FittedScore } from './agreement.js';
export { fitDavidson, outcomeProbabilities, PENALTY } from './davidson.js';
export type { DavidsonFit, PairCounts } from './davidson.js';
