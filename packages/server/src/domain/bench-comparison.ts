/**
 * Comparison of Bench runs, as pure functions of their scored clips: per dimension (and for
 * Quality, Semantic and Total recomputed over the dimensions compared) the difference candidate −
 * baseline, its 95 % interval, a permutation p-value, the clips and prompts behind it; per prompt
 * the differences, largest drop first; and the regression gate.
 *
 * **Comparable numbers only.** A dimension is compared when every run scored it, each with one
 * method at one version, the same in every run (`lite v3` against `vbench v1` measures two
 * different things); the others are listed with the reason. Quality/Semantic/Total are recomputed
 * over the compared dimensions only, so an extra, easy dimension in one run cannot tilt them; they
 * are `partial` unless their group's dimensions are all there.
 *
 * **Paired or unpaired.** Runs planned from the same prompt suite version share prompts and
 * sample indices: their clips are matched on (prompt, sample index) and the difference is the
 * mean over matched pairs, resampled and sign-flipped by prompt (a prompt's difficulty cancels
 * in its pairs, which is why the paired interval is the narrower one). Otherwise each run is
 * resampled on its own and the difference of the two means compared by relabelling prompts.
 *
 * **Several runs.** Every run is compared with the first (the baseline); each row's p-values are
 * adjusted by Holm across the comparisons (`holm` in the answer).
 *
 * **The gate.** A gated row regressed when the candidate is worse than the baseline by more than
 * `margin` with 97.5 % one-sided confidence — as a 95 % interval lying wholly beyond −margin —
 * family-wise over the gated rows: the one-sided permutation test of "candidate − baseline ≥
 * −margin" (the candidate's clips moved by `margin`, the test above) gives p, Holm adjusts the p's
 * over the gated rows, and a row regressed when its adjusted p < 0.025. A lower-is-better
 * dimension is turned round ("worse" is then higher). `margin` is in the row's own units: a
 * dimension's score, an aggregate's normalised scale.
 */
import { DIMENSION_IDS, categoryOf, getDimension, normalisationOf } from '@vesta/engine';
import type { DimensionId } from '@vesta/engine';
import { AGGREGATE_NAMES, leaderboardForms } from './leaderboard-forms.js';
import type { AggregateName, LinearForm } from './leaderboard-forms.js';
import { CONFIDENCE_LEVEL, RESAMPLES } from './scored-clip.js';
import type { ScoredClip } from './scored-clip.js';
import {
  bootstrapRatioMeans,
  clusterTable,
  holmAdjust,
  ratioMeans,
  permutationPValue,
  relabelDistribution,
  signFlipDistribution,
  stratumOfVariables,
  studentInterval,
} from './statistics/index.js';
import type { Alternative, ClusterTable, VarianceComponent } from './statistics/index.js';

/** One-sided level of the gate (the 95 % interval's upper end beyond −margin). */
export const GATE_ALPHA = 0.025;

export interface RunScores {
  id: string;
  /** The prompt suite version it was planned from (null: unknown, never paired). */
  suiteVersion: string | null;
  clips: readonly ScoredClip[];
}

export type RowName = DimensionId | AggregateName;

export interface NotComparable {
  dimension: DimensionId;
  reason: string;
}

export interface RowComparison {
  name: RowName;
  kind: 'dimension' | 'aggregate';
  higherIsBetter: boolean;
  /** The means the difference is taken between (over matched pairs when paired). */
  baseline: number;
  candidate: number;
  delta: number;
  ci95Low: number | null;
  ci95High: number | null;
  /** Two-sided permutation p-value of "no difference". */
  pValue: number;
  /** Holm-adjusted across the comparisons with the baseline (equal to `pValue` for one). */
  pAdjusted: number;
  /** Matched (prompt, sample) pairs when paired; the candidate's clips otherwise. */
  pairs: number | null;
  baselineClips: number;
  candidateClips: number;
  prompts: number;
  /** Aggregates only: some dimension of its VBench group is not among those compared. */
  partial: boolean;
}

export interface PromptDelta {
  promptId: string;
  prompt: string;
  group: string;
  /** Normalised (leaderboard-weighted) mean of the prompt's dimension deltas; sorts the list. */
  delta: number;
  dimensions: Array<{ dimension: DimensionId; baseline: number; candidate: number; delta: number }>;
  baselineClips: Array<{ sampleIndex: number; videoId: string }>;
  candidateClips: Array<{ sampleIndex: number; videoId: string }>;
}

export interface GateRow {
  name: RowName;
  delta: number;
  ci95Low: number | null;
  ci95High: number | null;
  pValue: number;
  pAdjusted: number;
  regressed: boolean;
}

export interface GateResult {
  margin: number;
  alpha: number;
  rows: GateRow[];
  regressions: RowName[];
}

export interface PairComparison {
  baselineId: string;
  candidateId: string;
  mode: 'paired' | 'unpaired';
  rows: RowComparison[];
  prompts: PromptDelta[];
  /** Clips left out of the paired difference because the other run has no clip to match them. */
  unmatched: { baseline: number; candidate: number };
  gate: GateResult | null;
}

export interface Comparison {
  /** Compared dimensions in VBench order. */
  dimensions: DimensionId[];
  notComparable: NotComparable[];
  comparisons: PairComparison[];
}

export interface CompareOptions {
  /** Restrict to these (default: every dimension some run scored). */
  dimensions?: readonly DimensionId[];
  gate?: { margin: number; rows: readonly RowName[] };
  resamples?: number;
}

const methodLabel = (m: { method: string; methodVersion: string }): string =>
  `${m.method} ${/^\d+$/.test(m.methodVersion) ? `v${m.methodVersion}` : m.methodVersion}`;

/** The dimensions every run scored with one and the same method version; the rest with why. */
export function comparableDimensions(
  runs: readonly RunScores[],
  candidates: readonly DimensionId[],
): { dimensions: DimensionId[]; notComparable: NotComparable[] } {
  const dimensions: DimensionId[] = [];
  const notComparable: NotComparable[] = [];
  for (const dimension of candidates) {
    const perRun = runs.map((run) => {
      const counts = new Map<string, number>();
      for (const c of run.clips)
        if (c.dimension === dimension) counts.set(methodLabel(c), (counts.get(methodLabel(c)) ?? 0) + 1);
      return { run, counts };
    });
    const missing = perRun.filter((r) => r.counts.size === 0).map((r) => r.run.id);
    const mixed = perRun.filter((r) => r.counts.size > 1);
    const labels = new Set(perRun.flatMap((r) => [...r.counts.keys()]));
    if (missing.length > 0) {
      notComparable.push({ dimension, reason: `not scored in ${missing.join(', ')}` });
    } else if (mixed.length > 0) {
      const r = mixed[0]!;
      notComparable.push({
        dimension,
        reason: `${r.run.id} mixes methods (${[...r.counts].map(([m, n]) => `${m} on ${n} clip(s)`).join(', ')})`,
      });
    } else if (labels.size > 1) {
      notComparable.push({
        dimension,
        reason: `scored by different methods: ${perRun.map((r) => `${[...r.counts.keys()][0]!} in ${r.run.id}`).join(', ')}`,
      });
    } else {
      dimensions.push(dimension);
    }
  }
  return { dimensions, notComparable };
}

const higherIsBetter = (d: DimensionId): boolean => getDimension(d)?.higherIsBetter ?? true;

/** A row to compute: a dimension (unit coefficients) or an aggregate (its leaderboard form). */
interface RowSpec {
  name: RowName;
  kind: 'dimension' | 'aggregate';
  /** Over the compared dimensions' indices. */
  coefficients: Float64Array;
  intercept: number;
  /** +1 when higher is better, −1 when lower is. */
  direction: 1 | -1;
  /** How far each dimension's clips move so that the row moves by 1 (for the gate's margin). */
  shift: Float64Array;
  partial: boolean;
}

function rowSpecs(dimensions: readonly DimensionId[]): RowSpec[] {
  const rows: RowSpec[] = dimensions.map((d, i) => {
    const coefficients = new Float64Array(dimensions.length);
    coefficients[i] = 1;
    return {
      name: d,
      kind: 'dimension',
      coefficients,
      intercept: 0,
      direction: higherIsBetter(d) ? 1 : -1,
      shift: coefficients.slice(),
      partial: false,
    };
  });
  const forms = leaderboardForms(dimensions);
  for (const name of AGGREGATE_NAMES) {
    const form: LinearForm | null = forms[name];
    if (!form) continue;
    const coefficients = new Float64Array(dimensions.length);
    const shift = new Float64Array(dimensions.length);
    for (const [d, c] of form.coefficients) {
      const i = dimensions.indexOf(d);
      coefficients[i] = c;
      // Moving every dimension by (max − min) of its normalisation moves each group, and so the
      // Total, by exactly 1 on the normalised scale.
      const { min, max } = normalisationOf(d);
      shift[i] = max - min;
    }
    const group =
      name === 'Quality' ? ['quality'] : name === 'Semantic' ? ['semantic'] : ['quality', 'semantic'];
    const partial = !DIMENSION_IDS.filter((d) => group.includes(categoryOf(d))).every((d) =>
      dimensions.includes(d),
    );
    rows.push({
      name,
      kind: 'aggregate',
      coefficients,
      intercept: form.intercept,
      direction: 1,
      shift,
      partial,
    });
  }
  return rows;
}

/**
 * Clips in one order whatever order the database returned them in (dimension, prompt, sample,
 * clip), so every sum is taken in the same order and the results are bit-identical.
 */
export function canonicalOrder(clips: readonly ScoredClip[]): ScoredClip[] {
  const key = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return clips
    .slice()
    .sort(
      (a, b) =>
        key(a.dimension, b.dimension) ||
        key(a.promptId, b.promptId) ||
        a.sampleIndex - b.sampleIndex ||
        key(a.videoId, b.videoId),
    );
}

const pairKey = (c: ScoredClip): string => `${c.promptId}\u0000${c.sampleIndex}`;

/** Baseline and candidate clips in one table, the candidate's clusters labelled 1. */
function pooledTable(
  baseline: readonly ScoredClip[],
  candidate: readonly ScoredClip[],
  dimensions: readonly DimensionId[],
): { table: ClusterTable; labels: Uint8Array } {
  const index = new Map(dimensions.map((d, i) => [d, i]));
  const observations = [
    ...baseline.map((c) => ({ c, side: 'a' })),
    ...candidate.map((c) => ({ c, side: 'b' })),
  ].flatMap(({ c, side }) => {
    const variable = index.get(c.dimension);
    return variable === undefined
      ? []
      : [{ stratum: c.group, cluster: `${side}\u0000${c.promptId}`, variable, value: c.value }];
  });
  const table = clusterTable(observations, dimensions.length);
  return { table, labels: Uint8Array.from(table.clusters, (k) => (k.startsWith('b\u0000') ? 1 : 0)) };
}

function tableOf(clips: readonly ScoredClip[], dimensions: readonly DimensionId[]): ClusterTable {
  const index = new Map(dimensions.map((d, i) => [d, i]));
  return clusterTable(
    clips.flatMap((c) => {
      const variable = index.get(c.dimension);
      return variable === undefined
        ? []
        : [{ stratum: c.group, cluster: c.promptId, variable, value: c.value }];
    }),
    dimensions.length,
  );
}

function weighted(values: Float64Array, coefficients: Float64Array, intercept: number): number {
  let x = intercept;
  for (let v = 0; v < values.length; v++) if (coefficients[v] !== 0) x += coefficients[v]! * values[v]!;
  return x;
}

/** Each table's stratum per variable, computed once (every row of a comparison asks). */
const strataOfTable = new WeakMap<ClusterTable, Int32Array>();

/**
 * The per-stratum variance components of each row (see services/bench-scorecard.ts): for each
 * row and each stratum holding a variable the row uses, the variance of that stratum's part of
 * the row, Σ_k c_k·x_k over the stratum's variables, across the replicate rows (rows where it is
 * not finite skipped), with df = the stratum's prompts holding those variables − 1.
 *
 * Every (row, stratum) part is its own Welford pass over the replicates — the same steps in the
 * same order as `finiteVariance` of the combined column, so the same numbers — but all the passes
 * advance together, one replicate at a time: each pass is a chain of dependent divisions, and
 * side by side the processor overlaps them instead of waiting on each in turn.
 */
function rowComponents(
  table: ClusterTable,
  replicates: Float64Array,
  rows: readonly Float64Array[],
): VarianceComponent[][] {
  let strata = strataOfTable.get(table);
  if (!strata) {
    strata = stratumOfVariables(table);
    strataOfTable.set(table, strata);
  }
  const V = table.variables;
  const passStart: number[] = [0];
  const passVariable: number[] = [];
  const passCoefficient: number[] = [];
  const passDf: number[] = [];
  const passesOfRow: number[][] = rows.map((coefficients) => {
    const mine: number[] = [];
    table.strata.forEach((s, g) => {
      const own: number[] = [];
      for (let v = 0; v < V; v++) if (strata[v] === g && coefficients[v] !== 0) own.push(v);
      if (own.length === 0) return;
      let prompts = 0;
      for (let c = s.start; c < s.end; c++) if (own.some((v) => table.counts[c * V + v]! > 0)) prompts++;
      for (const v of own) {
        passVariable.push(v);
        passCoefficient.push(coefficients[v]!);
      }
      passStart.push(passVariable.length);
      passDf.push(prompts - 1);
      mine.push(passDf.length - 1);
    });
    return mine;
  });
  const P = passDf.length;
  const start = Int32Array.from(passStart);
  const variable = Int32Array.from(passVariable);
  const coefficient = Float64Array.from(passCoefficient);
  const count = new Float64Array(P);
  const mean = new Float64Array(P);
  const m2 = new Float64Array(P);
  const resamples = replicates.length / V;
  for (let b = 0; b < resamples; b++) {
    const row = b * V;
    for (let p = 0; p < P; p++) {
      let x = 0;
      const end = start[p + 1]!;
      for (let i = start[p]!; i < end; i++) x += coefficient[i]! * replicates[row + variable[i]!]!;
      if (!Number.isFinite(x)) continue;
      const n = ++count[p]!;
      const d = x - mean[p]!;
      const m = mean[p]! + d / n;
      mean[p] = m;
      m2[p]! += d * (x - m);
    }
  }
  return passesOfRow.map((passes) =>
    passes.map((p) => ({
      variance: count[p]! > 1 ? m2[p]! / (count[p]! - 1) : Number.NaN,
      df: passDf[p]!,
    })),
  );
}

/** Prompts (clusters) of a table holding a value of a variable the row uses. */
function promptsOf(table: ClusterTable, coefficients: Float64Array): number {
  let n = 0;
  for (let c = 0; c < table.clusters.length; c++)
    for (let v = 0; v < table.variables; v++)
      if (coefficients[v] !== 0 && table.counts[c * table.variables + v]! > 0) {
        n++;
        break;
      }
  return n;
}

/** Values (clips) of the variables a row uses. */
function clipsOn(table: ClusterTable, coefficients: Float64Array): number {
  let n = 0;
  for (let k = 0; k < table.cells.length; k++) {
    const cell = table.cells[k]!;
    if (coefficients[cell % table.variables] !== 0) n += table.counts[cell]!;
  }
  return n;
}

/** Leaderboard weight per unit of a dimension's score: what makes deltas of dimensions comparable. */
const unitWeight = (d: DimensionId): number => {
  const { min, max, weight } = normalisationOf(d);
  return weight / (max - min);
};

/** Per prompt, the dimensions' deltas (clips already on the compared dimensions, matched when paired). */
function promptDeltas(
  baseline: readonly ScoredClip[],
  candidate: readonly ScoredClip[],
  dimensions: readonly DimensionId[],
  paired: boolean,
): PromptDelta[] {
  // Paired (the clips are the matched pairs): by prompt id; unpaired: by prompt text.
  const keyOf = (c: ScoredClip): string => (paired ? c.promptId : c.promptText);
  const groups = new Map<string, { a: ScoredClip[]; b: ScoredClip[] }>();
  for (const [side, list] of [
    ['a', baseline],
    ['b', candidate],
  ] as const)
    for (const c of list) {
      const g = groups.get(keyOf(c)) ?? { a: [], b: [] };
      g[side].push(c);
      groups.set(keyOf(c), g);
    }
  const out: PromptDelta[] = [];
  for (const { a, b } of groups.values()) {
    if (a.length === 0 || b.length === 0) continue;
    const rows = dimensions.flatMap((dimension) => {
      const x = a.filter((c) => c.dimension === dimension);
      const y = b.filter((c) => c.dimension === dimension);
      if (x.length === 0 || y.length === 0) return [];
      const mean = (list: ScoredClip[]): number => list.reduce((s, c) => s + c.value, 0) / list.length;
      const baselineMean = mean(x);
      const candidateMean = mean(y);
      return [
        { dimension, baseline: baselineMean, candidate: candidateMean, delta: candidateMean - baselineMean },
      ];
    });
    if (rows.length === 0) continue;
    const weights = rows.reduce((s, r) => s + normalisationOf(r.dimension).weight, 0);
    const delta =
      rows.reduce(
        (s, r) => s + (higherIsBetter(r.dimension) ? 1 : -1) * unitWeight(r.dimension) * r.delta,
        0,
      ) / weights;
    const clipsOf = (list: ScoredClip[]): Array<{ sampleIndex: number; videoId: string }> =>
      [
        ...new Map(list.map((c) => [c.videoId, { sampleIndex: c.sampleIndex, videoId: c.videoId }])).values(),
      ].sort((p, q) => p.sampleIndex - q.sampleIndex || (p.videoId < q.videoId ? -1 : 1));
    out.push({
      promptId: b[0]!.promptId,
      prompt: b[0]!.promptText,
      group: b[0]!.group,
      delta,
      dimensions: rows,
      baselineClips: clipsOf(a),
      candidateClips: clipsOf(b),
    });
  }
  return out.sort(
    (p, q) => p.delta - q.delta || (p.promptId < q.promptId ? -1 : p.promptId > q.promptId ? 1 : 0),
  );
}

/** One baseline against one candidate on `dimensions` (already comparable). */
export function compareTwo(
  baseline: RunScores,
  candidate: RunScores,
  dimensions: readonly DimensionId[],
  options: { resamples?: number; gate?: CompareOptions['gate'] } = {},
): PairComparison {
  const resamples = options.resamples ?? RESAMPLES;
  const seed = [baseline.id, candidate.id];
  const paired = baseline.suiteVersion !== null && baseline.suiteVersion === candidate.suiteVersion;
  const specs = rowSpecs(dimensions);
  const onDims = (clips: readonly ScoredClip[]): ScoredClip[] =>
    canonicalOrder(clips.filter((c) => dimensions.includes(c.dimension)));
  let a = onDims(baseline.clips);
  let b = onDims(candidate.clips);
  const unmatched = { baseline: 0, candidate: 0 };
  if (paired) {
    const keys = (list: ScoredClip[]): Set<string> =>
      new Set(list.map((c) => `${c.dimension}\u0000${pairKey(c)}`));
    const inA = keys(a);
    const inB = keys(b);
    const matchedA = a.filter((c) => inB.has(`${c.dimension}\u0000${pairKey(c)}`));
    const matchedB = b.filter((c) => inA.has(`${c.dimension}\u0000${pairKey(c)}`));
    unmatched.baseline = a.length - matchedA.length;
    unmatched.candidate = b.length - matchedB.length;
    a = matchedA;
    b = matchedB;
  }
  const tableA = tableOf(a, dimensions);
  const tableB = tableOf(b, dimensions);
  const meansA = new Float64Array(dimensions.length);
  const meansB = new Float64Array(dimensions.length);
  ratioMeans(tableA, null, meansA);
  ratioMeans(tableB, null, meansB);

  // Paired: the table of differences (candidate − baseline) per matched pair, by prompt.
  const byPairA = new Map(a.map((c) => [`${c.dimension}\u0000${pairKey(c)}`, c]));
  const diffTable = paired
    ? clusterTable(
        b.map((c) => ({
          stratum: c.group,
          cluster: c.promptId,
          variable: dimensions.indexOf(c.dimension),
          value: c.value - byPairA.get(`${c.dimension}\u0000${pairKey(c)}`)!.value,
        })),
        dimensions.length,
      )
    : null;
  const diffReplicates = diffTable
    ? bootstrapRatioMeans(diffTable, { resamples, seed: [...seed, 'paired'] })
    : null;
  const replicatesA = diffTable
    ? null
    : bootstrapRatioMeans(tableA, { resamples, seed: [...seed, 'baseline'] });
  const replicatesB = diffTable
    ? null
    : bootstrapRatioMeans(tableB, { resamples, seed: [...seed, 'candidate'] });
  // One null distribution per comparison serves every row and the gate's shifted tests.
  const observed = new Float64Array(dimensions.length);
  for (let v = 0; v < dimensions.length; v++) observed[v] = meansB[v]! - meansA[v]!;
  const pooled = diffTable ? null : pooledTable(a, b, dimensions);
  // The shifts' weights are read by the gate's tests alone.
  const withWeights = options.gate !== undefined;
  const distribution = diffTable
    ? signFlipDistribution(diffTable, { resamples, seed: [...seed, 'sign-flip'], withWeights })
    : relabelDistribution(pooled!.table, pooled!.labels, {
        resamples,
        seed: [...seed, 'relabel'],
        withWeights,
      });
  const test = (row: RowSpec, margin: number, alternative: Alternative): number =>
    permutationPValue(
      distribution,
      observed,
      row.coefficients.map((k) => k * row.direction),
      margin === 0 ? null : row.shift.map((x) => x * margin * row.direction),
      alternative,
    );

  const coefficientsOfRows = specs.map((row) => row.coefficients);
  const diffParts = diffTable ? rowComponents(diffTable, diffReplicates!, coefficientsOfRows) : null;
  const partsA = diffTable ? null : rowComponents(tableA, replicatesA!, coefficientsOfRows);
  const partsB = diffTable ? null : rowComponents(tableB, replicatesB!, coefficientsOfRows);
  const rows: RowComparison[] = specs.map((row, i) => {
    const base = weighted(meansA, row.coefficients, row.intercept);
    const cand = weighted(meansB, row.coefficients, row.intercept);
    const delta = cand - base;
    const parts = diffParts ? diffParts[i]! : [...partsA![i]!, ...partsB![i]!];
    const ci = studentInterval(delta, parts, CONFIDENCE_LEVEL);
    const pValue = test(row, 0, 'two-sided');
    return {
      name: row.name,
      kind: row.kind,
      higherIsBetter: row.direction === 1,
      baseline: base,
      candidate: cand,
      delta,
      ci95Low: ci?.low ?? null,
      ci95High: ci?.high ?? null,
      pValue,
      pAdjusted: pValue,
      pairs: paired ? clipsOn(tableB, row.coefficients) : null,
      baselineClips: clipsOn(tableA, row.coefficients),
      candidateClips: clipsOn(tableB, row.coefficients),
      prompts: promptsOf(diffTable ?? tableB, row.coefficients),
      partial: row.partial,
    };
  });

  let gate: GateResult | null = null;
  if (options.gate) {
    const { margin } = options.gate;
    const gated = specs.filter((s) => options.gate!.rows.includes(s.name));
    const pValues = gated.map((row) => test(row, margin, 'less'));
    const adjusted = holmAdjust(pValues);
    const gateRows = gated.map((row, i) => {
      const shown = rows.find((r) => r.name === row.name)!;
      return {
        name: row.name,
        delta: shown.delta,
        ci95Low: shown.ci95Low,
        ci95High: shown.ci95High,
        pValue: pValues[i]!,
        pAdjusted: adjusted[i]!,
        regressed: adjusted[i]! < GATE_ALPHA,
      };
    });
    gate = {
      margin,
      alpha: GATE_ALPHA,
      rows: gateRows,
      regressions: gateRows.filter((r) => r.regressed).map((r) => r.name),
    };
  }

  return {
    baselineId: baseline.id,
    candidateId: candidate.id,
    mode: paired ? 'paired' : 'unpaired',
    rows,
    prompts: promptDeltas(a, b, dimensions, paired),
    unmatched,
    gate,
  };
}

/**
 * Every run after the first against the first, on the dimensions they can be compared on; each
 * row's p-values Holm-adjusted across the comparisons.
 */
export function compareRuns(runs: readonly RunScores[], options: CompareOptions = {}): Comparison {
  const [baseline, ...candidates] = runs;
  if (!baseline || candidates.length === 0) throw new RangeError('compare at least two runs');
  const scored = DIMENSION_IDS.filter((d) => runs.some((r) => r.clips.some((c) => c.dimension === d)));
  const wanted = options.dimensions ? DIMENSION_IDS.filter((d) => options.dimensions!.includes(d)) : scored;
  const { dimensions, notComparable } = comparableDimensions(runs, wanted);
  const comparisons =
    dimensions.length === 0
      ? []
      : candidates.map((candidate) =>
          compareTwo(baseline, candidate, dimensions, { resamples: options.resamples, gate: options.gate }),
        );
  if (comparisons.length > 1) {
    const names = comparisons[0]!.rows.map((r) => r.name);
    for (const name of names) {
      const rows = comparisons.map((c) => c.rows.find((r) => r.name === name)!);
      holmAdjust(rows.map((r) => r.pValue)).forEach((p, i) => (rows[i]!.pAdjusted = p));
    }
  }
  return { dimensions, notComparable, comparisons };
}
