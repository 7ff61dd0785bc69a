/**
 * Holm's step-down correction (Holm 1979): with m p-values sorted ascending, the i-th (from 1)
 * is adjusted to max over j ≤ i of min(1, (m − j + 1)·p_(j)). Rejecting where the adjusted value
 * is below α keeps the chance of any false rejection among the m at most α, with no assumption
 * about how the tests depend on each other, and rejects at least what Bonferroni does.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
