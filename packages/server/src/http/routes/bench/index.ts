/** The Bench area: the process's BenchRunService (from the composition root) shared by its operations. */
import type { RouteModule } from '../../app-deps.js';
import { cancelBenchRunRoute } from './cancel-bench-run.route.js';
import { compareBenchRunsRoute } from './compare-bench-runs.route.js';
import { createBenchRunRoute } from './create-bench-run.route.js';
import { deleteBenchRunRoute } from './delete-bench-run.route.js';
import { getBenchCsvRoute } from './get-bench-csv.route.js';
import { getBenchLogsRoute } from './get-bench-logs.route.js';
import { getBenchRunRoute } from './get-bench-run.route.js';
import { getBenchScorecardRoute } from './get-bench-scorecard.route.js';
import { getModelBaselineRoute } from './get-model-baseline.route.js';
import { setModelBaselineRoute } from './set-model-baseline.route.js';
import { clearModelBaselineRoute } from './clear-model-baseline.route.js';
import { listBenchRunsRoute } from './list-bench-runs.route.js';
import { listBenchVideosRoute } from './list-bench-videos.route.js';

export const benchRoutes: RouteModule = (app, { deps }) => {
  const bench = deps.bench.runs;
  createBenchRunRoute(app, bench);
  listBenchRunsRoute(app, bench);
  getBenchRunRoute(app, bench);
  cancelBenchRunRoute(app, bench);
  deleteBenchRunRoute(app, bench);
  listBenchVideosRoute(app, bench);
  getBenchScorecardRoute(app, bench);
  getBenchCsvRoute(app, bench);
  getBenchLogsRoute(app, bench);
  compareBenchRunsRoute(app, deps.bench.comparisons);
  getModelBaselineRoute(app, deps.bench.baselines);
  setModelBaselineRoute(app, deps.bench.baselines);
  clearModelBaselineRoute(app, deps.bench.baselines);
};
