/**
 * Observations as the resampling sees them: **variables** (a Bench dimension) measured on
 * **clusters** (a prompt: all of its clips move together when resampled, since clips of one prompt
 * share the prompt's difficulty), clusters grouped in **strata** (a clip group: resampled on their
 * own, because a run always has each group's prompts — they are not a random draw across groups).
 *
 * A table keeps, per cluster and variable, the sum and count of the values, so that any weighted
 * ratio mean (Σ w·sum / Σ w·count) — the plain clip mean, a bootstrap replicate, a permuted or
 * sign-flipped statistic — costs O(clusters × variables), whatever the number of clips.
 *
 * Built deterministically: strata and clusters are ordered by key and values summed in sorted
 * order, so the same observations give bit-identical sums in whatever order a database returns
 * them.
 */

export interface Observation {
  stratum: string;
  cluster: string;
  /** Index of the variable, 0 ≤ variable < the table's `variables`. */
  variable: number;
  value: number;
}

export interface Stratum {
  key: string;
  /** Its clusters are `start … end − 1` of the table. */
  start: number;
  end: number;
}

export interface ClusterTable {
  variables: number;
  strata: readonly Stratum[];
  clusters: readonly string[];
  /** `sums[c · variables + v]`: Σ of variable v's values in cluster c. */
  sums: Float64Array;
  /** `counts[c · variables + v]`: how many values of variable v cluster c holds. */
  counts: Float64Array;
  /**
   * The cells that hold values, cluster by cluster: cluster c's are `cells[cellStart[c] …
   * cellStart[c + 1] − 1]`, each the index `c · variables + v` (loops skip the empty ones).
   */
  cellStart: Int32Array;
  cells: Int32Array;
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The table of `observations` (each a finite value of a variable in a cluster of a stratum). */
export function clusterTable(observations: readonly Observation[], variables: number): ClusterTable {
  // stratum → cluster → per-variable values; keys and values are sorted below, so the sums do
  // not depend on the order the observations came in.
  const byStratum = new Map<string, Map<string, number[][]>>();
  for (const o of observations) {
    if (!Number.isInteger(o.variable) || o.variable < 0 || o.variable >= variables)
      throw new RangeError(`observation of variable ${o.variable}: the table has ${variables}`);
    if (!Number.isFinite(o.value)) throw new RangeError(`observation value is not finite: ${o.value}`);
    let clusters = byStratum.get(o.stratum);
    if (!clusters) byStratum.set(o.stratum, (clusters = new Map<string, number[][]>()));
    let cells = clusters.get(o.cluster);
    if (!cells) clusters.set(o.cluster, (cells = Array.from({ length: variables }, () => [])));
    cells[o.variable]!.push(o.value);
  }
  const strata: Stratum[] = [];
  const clusters: string[] = [];
  const cellValues: number[][][] = [];
  for (const stratum of [...byStratum.keys()].sort(byKey)) {
    const own = byStratum.get(stratum)!;
    const start = clusters.length;
    for (const cluster of [...own.keys()].sort(byKey)) {
      clusters.push(cluster);
      cellValues.push(own.get(cluster)!);
    }
    strata.push({ key: stratum, start, end: clusters.length });
  }
  const sums = new Float64Array(clusters.length * variables);
  const counts = new Float64Array(clusters.length * variables);
  const cellStart = new Int32Array(clusters.length + 1);
  const cells: number[] = [];
  cellValues.forEach((values, c) => {
    cellStart[c] = cells.length;
    values.forEach((list, v) => {
      if (list.length === 0) return;
      list.sort((x, y) => x - y);
      let sum = 0;
      for (const x of list) sum += x;
      sums[c * variables + v] = sum;
      counts[c * variables + v] = list.length;
      cells.push(c * variables + v);
    });
  });
  cellStart[clusters.length] = cells.length;
  return { variables, strata, clusters, sums, counts, cellStart, cells: Int32Array.from(cells) };
}

/**
 * Weighted ratio means into `out`: for each variable Σ_c w_c·sum / Σ_c w_c·count (NaN where no
 * weighted cluster holds the variable). `weights` null means every cluster once: the plain mean.
 */
export function ratioMeans(table: ClusterTable, weights: Float64Array | null, out: Float64Array): void {
  const V = table.variables;
  const num = new Float64Array(V);
  const den = new Float64Array(V);
  weightedSums(table, weights, num, den);
  for (let v = 0; v < V; v++) out[v] = den[v]! > 0 ? num[v]! / den[v]! : Number.NaN;
}

/** Σ_c w_c·sum and Σ_c w_c·count per variable, added into `num` and `den` (weights null: all 1). */
export function weightedSums(
  table: ClusterTable,
  weights: ArrayLike<number> | null,
  num: Float64Array,
  den: Float64Array,
): void {
  const { variables: V, sums, counts, cellStart, cells } = table;
  for (let c = 0; c < table.clusters.length; c++) {
    const w = weights === null ? 1 : weights[c]!;
    if (w === 0) continue;
    for (let k = cellStart[c]!; k < cellStart[c + 1]!; k++) {
      const cell = cells[k]!;
      const v = cell - c * V;
      num[v]! += w * sums[cell]!;
      den[v]! += w * counts[cell]!;
    }
  }
}

/**
 * A table's cells regrouped by variable: variable v's are `variableStart[v] … variableStart[v + 1]
 * − 1`, in cluster order (the order `weightedSums` adds them in), each with its cluster, sum and
 * count. The resampling loops walk these so that a variable's sum per replicate is a local
 * accumulator. Computed once per table (kept beside it).
 */
export interface CellsByVariable {
  variableStart: Int32Array;
  cellCluster: Int32Array;
  cellSum: Float64Array;
  cellCount: Float64Array;
  /** Every cell's sum is finite (a sum of finite values can still overflow to ±∞). */
  finite: boolean;
}

const byVariableOf = new WeakMap<ClusterTable, CellsByVariable>();

export function cellsByVariable(table: ClusterTable): CellsByVariable {
  const kept = byVariableOf.get(table);
  if (kept) return kept;
  const { variables: V, cells, cellStart } = table;
  const clusters = table.clusters.length;
  const variableStart = new Int32Array(V + 1);
  for (let k = 0; k < cells.length; k++) variableStart[(cells[k]! % V) + 1]! += 1;
  for (let v = 0; v < V; v++) variableStart[v + 1]! += variableStart[v]!;
  const next = variableStart.slice(0, V);
  const cellCluster = new Int32Array(cells.length);
  const cellSum = new Float64Array(cells.length);
  const cellCount = new Float64Array(cells.length);
  for (let c = 0; c < clusters; c++)
    for (let k = cellStart[c]!; k < cellStart[c + 1]!; k++) {
      const cell = cells[k]!;
      const at = next[cell - c * V]!++;
      cellCluster[at] = c;
      cellSum[at] = table.sums[cell]!;
      cellCount[at] = table.counts[cell]!;
    }
  const out = { variableStart, cellCluster, cellSum, cellCount, finite: cellSum.every(Number.isFinite) };
  byVariableOf.set(table, out);
  return out;
}

/** The stratum each variable's values lie in (−1: none); throws when a variable spans strata. */
export function stratumOfVariables(table: ClusterTable): Int32Array {
  const out = new Int32Array(table.variables).fill(-1);
  table.strata.forEach((s, g) => {
    for (let c = s.start; c < s.end; c++)
      for (let v = 0; v < table.variables; v++) {
        if (table.counts[c * table.variables + v] === 0) continue;
        if (out[v] !== -1 && out[v] !== g)
          throw new RangeError(
            `variable ${v} has values in two strata (${table.strata[out[v]!]!.key}, ${s.key})`,
          );
        out[v] = g;
      }
  });
  return out;
}
