/** The judging area (issue #23): campaigns, judges, judging and export, on the process's JudgingService. */
import type { RouteModule } from '../../app-deps.js';
import { campaignRoutes } from './campaigns.route.js';
import { exportRoutes } from './export.route.js';
import { judgeRoutes } from './judges.route.js';
import { judgingRoutes } from './judging.route.js';
import { resultRoutes } from './results.route.js';

export const judgingAreaRoutes: RouteModule = (app, { deps }) => {
  const judging = deps.services.judging;
  campaignRoutes(app, judging);
  judgeRoutes(app, judging, deps);
  judgingRoutes(app, judging, deps);
  resultRoutes(app, judging);
  exportRoutes(app, judging);
};
