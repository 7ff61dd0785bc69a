/**
 * Statistics for decisions: how sure a score is, and whether a difference between two runs is
 * real. Pure functions on numbers (no I/O, no database, no HTTP); the Bench scorecard, the run
 * comparison and the regression gate are built on them, and so can any later analysis that
 * resamples prompts (e.g. pairwise-preference ratings with intervals over prompts).
 *
 * - `random.ts`: named, seeded random streams (the same names give the same numbers).
 * - `clusters.ts`: observations summed per cluster (prompt) and variable (dimension) within
 *   strata (clip groups); ratio means of weighted clusters.
 * - `bootstrap.ts`: the stratified cluster bootstrap (n − 1 of n clusters per stratum), generic
 *   over the statistic, with a fast path for ratio means and linear combinations of them.
 * - `intervals.ts`: the t interval on the bootstrap standard error with Welch–Satterthwaite
 *   degrees of freedom (and why not the percentile or BCa interval), the percentile interval.
 * - `permutation.ts`: the sign-flip test (paired) and the relabelling test (unpaired), as null
 *   distributions per variable shared by every linear combination and shift; p-values exact when
 *   every pattern can be enumerated, else with the +1 correction.
 * - `multiplicity.ts`: Holm's correction.
 *
 * docs/statistics.md states the methods and the simulation that checks them.
 */
export { bootstrapRatioMeans, bootstrapReplicates, combineReplicates } from './bootstrap.js';
export type { BootstrapOptions } from './bootstrap.js';
export { clusterTable, ratioMeans, stratumOfVariables, weightedSums } from './clusters.js';
export type { ClusterTable, Observation, Stratum } from './clusters.js';
export {
  finiteVariance,
  percentileInterval,
  satterthwaiteDf,
  studentInterval,
  tQuantile,
} from './intervals.js';
export type { Interval, VarianceComponent } from './intervals.js';
export { holmAdjust } from './multiplicity.js';
export { permutationPValue, relabelDistribution, signFlipDistribution } from './permutation.js';
export type { Alternative, NullDistribution, PermutationOptions } from './permutation.js';
export { randomBelow, seededRandom } from './random.js';
export type { RandomGenerator } from './random.js';
