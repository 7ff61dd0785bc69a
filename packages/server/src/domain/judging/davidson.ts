/**
 * Bradley–Terry with ties: **Davidson's model** (Davidson 1970). Item i has a strength
 * πᵢ = exp(θᵢ); for a pair (i, j) with s = θᵢ − θⱼ and ν = exp(δ),
 *
 *   P(i preferred) = πᵢ / D,   P(j preferred) = πⱼ / D,   P(tie) = ν·√(πᵢπⱼ) / D,
 *   D = πᵢ + πⱼ + ν·√(πᵢπⱼ)   ⇔   (e^{s/2}, e^{−s/2}, e^δ) / (e^{s/2} + e^{−s/2} + e^δ).
 *
 * That is a three-way softmax whose logits (s/2, −s/2, δ) are linear in the parameters, so the
 * log-likelihood is concave in (θ, δ) and its Hessian is the Fisher information. It is fitted by
 * **Newton's method** with a step-halving line search, to convergence (largest step < 1e-9).
 *
 * A weak **L2 penalty** λ/2·(Σθᵢ² + δ²), λ = 0.1 (a Gaussian prior of SD ≈ 3.2 on a log scale),
 * keeps every estimate finite — an item that won all its votes would otherwise go to +∞, and a
 * campaign without ties would send δ to −∞ — and anchors the scale: the likelihood does not change
 * when every θ moves by the same amount, so at the optimum Σθᵢ = 0 exactly (the **mean rating is
 * 0**). Its pull is small next to the data: an item with 20 votes against equals has a Fisher
 * information of about 5 per unit of θ, so it is shrunk by about 0.1/5 = 2 %.
 */

/** The penalty on θ and δ (see above). */
export const PENALTY = 0.1;

/** Votes aggregated per unordered pair of items (i < j), possibly weighted (bootstrap). */
export interface PairCounts {
  /** Number of items. */
  items: number;
  i: Int32Array;
  j: Int32Array;
  /** Weighted counts per pair: i preferred, j preferred, tie. */
  winsI: Float64Array;
  winsJ: Float64Array;
  ties: Float64Array;
}

export interface DavidsonFit {
  /** Log-strengths, one per item, Σ = 0. */
  theta: Float64Array;
  /** log ν (the tie parameter). */
  logNu: number;
  iterations: number;
}

/** θ differences are clamped to ±2·HALF_LIMIT in the exponentials (never reached with the penalty). */
const HALF_LIMIT = 300;

/**
 * One pass over the pairs at (theta, logNu): the penalised log-likelihood, and when `g` and `h`
 * are given, its gradient into `g` and the information matrix (its negative Hessian) into `h`
 * (row-major, (K + 1)², index K being δ).
 */
function evaluate(
  counts: PairCounts,
  theta: Float64Array,
  logNu: number,
  g: Float64Array | null,
  h: Float64Array | null,
): number {
  const K = counts.items;
  const n = K + 1;
  const nu = Math.exp(logNu);
  let ll = 0;
  let sq = logNu * logNu;
  for (let k = 0; k < K; k++) sq += theta[k]! * theta[k]!;
  if (g && h) {
    h.fill(0);
    for (let k = 0; k < K; k++) {
      g[k] = -PENALTY * theta[k]!;
      h[k * n + k] = PENALTY;
    }
    g[K] = -PENALTY * logNu;
    h[K * n + K] = PENALTY;
  }
  const { i, j, winsI, winsJ, ties } = counts;
  for (let p = 0; p < i.length; p++) {
    const wi = winsI[p]!;
    const wj = winsJ[p]!;
    const t = ties[p]!;
    const total = wi + wj + t;
    if (total === 0) continue;
    const a = i[p]!;
    const b = j[p]!;
    const half = Math.max(-HALF_LIMIT, Math.min(HALF_LIMIT, (theta[a]! - theta[b]!) / 2));
    const ea = Math.exp(half);
    const eb = 1 / ea;
    const denominator = ea + eb + nu;
    ll += (wi - wj) * half + t * logNu - total * Math.log(denominator);
    if (!g || !h) continue;
    const pi = ea / denominator;
    const pj = eb / denominator;
    const pt = nu / denominator;
    // ∂/∂s and ∂/∂δ of the pair's log-likelihood (s = θa − θb), and the covariance of the
    // softmax's sufficient statistics along s and δ (the information).
    const diff = pi - pj;
    const gs = (wi - wj - total * diff) / 2;
    const hss = (total * (pi + pj - diff * diff)) / 4;
    const hsd = (-total * pt * diff) / 2;
    g[a]! += gs;
    g[b]! -= gs;
    g[K]! += t - total * pt;
    h[a * n + a]! += hss;
    h[b * n + b]! += hss;
    h[a * n + b]! -= hss;
    h[b * n + a]! -= hss;
    h[a * n + K]! += hsd;
    h[K * n + a]! += hsd;
    h[b * n + K]! -= hsd;
    h[K * n + b]! -= hsd;
    h[K * n + K]! += total * pt * (1 - pt);
  }
  return ll - (PENALTY / 2) * sq;
}

/** Solves H·x = g in place (g becomes x) for a symmetric positive definite H (row-major, n×n). */
function choleskySolve(h: Float64Array, g: Float64Array, n: number): void {
  // h ← L (lower triangle), H = L·Lᵀ.
  for (let c = 0; c < n; c++) {
    let d = h[c * n + c]!;
    for (let k = 0; k < c; k++) d -= h[c * n + k]! * h[c * n + k]!;
    if (!(d > 0)) throw new RangeError('Davidson fit: the information matrix is not positive definite');
    const l = Math.sqrt(d);
    h[c * n + c] = l;
    for (let r = c + 1; r < n; r++) {
      let v = h[r * n + c]!;
      for (let k = 0; k < c; k++) v -= h[r * n + k]! * h[c * n + k]!;
      h[r * n + c] = v / l;
    }
  }
  for (let r = 0; r < n; r++) {
    let v = g[r]!;
    for (let k = 0; k < r; k++) v -= h[r * n + k]! * g[k]!;
    g[r] = v / h[r * n + r]!;
  }
  for (let r = n - 1; r >= 0; r--) {
    let v = g[r]!;
    for (let k = r + 1; k < n; k++) v -= h[k * n + r]! * g[k]!;
    g[r] = v / h[r * n + r]!;
  }
}

const TOLERANCE = 1e-9;
/** Bootstrap replicates stop at 1e-6: their spread is what is used, and it is ~1e-1. */
export const REPLICATE_TOLERANCE = 1e-6;
const MAX_ITERATIONS = 200;

/**
 * The penalised maximum-likelihood fit, starting from `start` (a previous fit of similar data
 * converges in two or three steps) or from all-equal strengths.
 */
export function fitDavidson(
  counts: PairCounts,
  start?: { theta: ArrayLike<number>; logNu: number },
  tolerance = TOLERANCE,
): DavidsonFit {
  const K = counts.items;
  const n = K + 1; // θ₀ … θ_{K−1}, δ
  let theta = start ? Float64Array.from(start.theta) : new Float64Array(K);
  let logNu = start ? start.logNu : 0;
  let trial = new Float64Array(K);
  const h = new Float64Array(n * n);
  const g = new Float64Array(n);
  let current = evaluate(counts, theta, logNu, g, h);
  for (let iteration = 1; iteration <= MAX_ITERATIONS; iteration++) {
    choleskySolve(h, g, n); // g is now the Newton step
    let largest = 0;
    for (let k = 0; k < n; k++) largest = Math.max(largest, Math.abs(g[k]!));
    if (largest < tolerance) return { theta: centre(theta), logNu, iterations: iteration };
    // Step halving: the objective is concave, so a short enough Newton step always improves it.
    // The accepted point's gradient and information come from the same pass as its value.
    const step = Float64Array.from(g);
    let scale = 1;
    for (let halving = 0; ; halving++) {
      for (let k = 0; k < K; k++) trial[k] = theta[k]! + scale * step[k]!;
      const trialNu = logNu + scale * step[K]!;
      const value = evaluate(counts, trial, trialNu, g, h);
      if (value >= current - 1e-12 * Math.abs(current) || halving === 40) {
        [theta, trial] = [trial, theta];
        logNu = trialNu;
        current = value;
        break;
      }
      scale /= 2;
    }
    if (largest * scale < tolerance) return { theta: centre(theta), logNu, iterations: iteration };
  }
  return { theta: centre(theta), logNu, iterations: MAX_ITERATIONS };
}

/** Removes the rounding left in Σθ (the optimum has Σθ = 0 exactly). */
function centre(theta: Float64Array): Float64Array {
  let sum = 0;
  for (let k = 0; k < theta.length; k++) sum += theta[k]!;
  const mean = sum / theta.length;
  for (let k = 0; k < theta.length; k++) theta[k]! -= mean;
  return theta;
}

/** The three outcome probabilities of a pair under a fit: (A preferred, B preferred, tie). */
export function outcomeProbabilities(
  thetaA: number,
  thetaB: number,
  logNu: number,
): [number, number, number] {
  const half = Math.max(-HALF_LIMIT, Math.min(HALF_LIMIT, (thetaA - thetaB) / 2));
  const ea = Math.exp(half);
  const eb = 1 / ea;
  const nu = Math.exp(logNu);
  const denominator = ea + eb + nu;
  return [ea / denominator, eb / denominator, nu / denominator];
}
