/** The runner protocol: runners and their leased generation tasks (see services/bench-runners.ts). */
import type { RouteModule } from '../../app-deps.js';
import { runnerTaskRoutes } from './runner-tasks.route.js';
import { runnerRoutes } from './runners.route.js';

export const runnerProtocolRoutes: RouteModule = (app, { deps }) => {
  runnerRoutes(app, deps.bench.runners);
  runnerTaskRoutes(app, deps.bench.runners);
};
