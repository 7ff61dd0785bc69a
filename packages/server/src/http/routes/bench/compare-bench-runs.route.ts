import { OWNED_READ_ERRORS, errorResponses } from '../../schemas/common.js';
import { BENCH_TAG, callerOf } from './context.js';
import type { BenchComparisonService } from '../../../services/bench-comparison.service.js';
import type { TypedApp } from '../../app-deps.js';
import { BenchComparison, CompareQuery } from './comparison-schemas.js';

/** A comma-separated list: its items, trimmed; an empty item is kept, so `a,,b` is refused. */
const items = (text: string): string[] => text.split(',').map((s) => s.trim());

export function compareBenchRunsRoute(app: TypedApp, comparisons: BenchComparisonService): void {
  app.get(
    '/api/v1/bench/compare',
    {
      schema: {
        operationId: 'compareBenchRuns',
        tags: [BENCH_TAG],
        summary: 'Compare Bench runs (and gate a candidate on regressions)',
        description:
          "Every run after the first against the first (the baseline): per compared dimension, and for Quality, Semantic and Total recomputed over the compared dimensions only (`partial` when their VBench group is incomplete), the difference candidate − baseline with its 95 % interval and a permutation p-value, the clips and prompts behind it; then per prompt the differences, largest drop first, with both runs' clips of that prompt. " +
          "Runs planned from the same prompt suite version are compared **paired** (clips matched on prompt and sample index; prompts resampled and sign-flipped together); others **unpaired**. A dimension is compared only when every run scored it with one and the same method version; the others are listed in `not_comparable` with why. With more than two runs each row's p-values are Holm-adjusted across the comparisons (`correction`). " +
          'With `fail_on_regression` (two runs), `gate` says whether the candidate regressed (see the parameter). Every interval and p-value is deterministic: seeded from the two run ids. See docs/statistics.md.',
        querystring: CompareQuery,
        response: {
          200: BenchComparison,
          ...errorResponses(...OWNED_READ_ERRORS, 'no_scored_clips'),
        },
      },
    },
    async (request) => {
      const { runs, dimensions, fail_on_regression, prompt_limit } = request.query;
      const ids = items(runs);
      return comparisons.compare(callerOf(request).id, {
        runs: ids,
        dimensions: dimensions === undefined || dimensions.trim() === '' ? undefined : items(dimensions),
        fail_on_regression,
        prompt_limit,
      });
    },
  );
}
