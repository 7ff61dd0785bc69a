/**
 * Which pair to judge next: the one whose outcome is least certain under the current ratings,
 * discounted by the votes it already has.
 */

/**
 * The entropy (in bits) of "A preferred vs B preferred" under Bradley–Terry with the current
 * ratings, p = 1 / (1 + e^{−(θA − θB)}), divided by 1 + the votes already on the pair: 1 for two
 * equal items never judged, towards 0 for a foregone pair or one judged many times. An item
 * without a rating yet (NaN) counts as equal to its opponent, so new items are judged early.
 * Higher means judge sooner.
 */
export function pairUncertainty(ratingA: number, ratingB: number, votesOnPair: number): number {
  const difference = Number.isFinite(ratingA) && Number.isFinite(ratingB) ? ratingA - ratingB : 0;
  const p = 1 / (1 + Math.exp(-Math.abs(difference)));
  const q = 1 - p;
  const entropy = q > 0 ? -(p * Math.log2(p) + q * Math.log2(q)) : 0;
  return entropy / (1 + Math.max(0, votesOnPair));
}
