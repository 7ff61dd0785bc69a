/** The runner protocol: runners and their leased generation tasks (see services/runner.service.ts and services/runner-task.service.ts). */
import type { RouteModule } from '../../app-deps.js';
import { runnerTaskRoutes } from './runner-tasks.route.js';
import { runnerRoutes } from './runners.route.js';

export const runnerProtocolRoutes: RouteModule = (app, { deps }) => {
  runnerRoutes(app, deps.bench.runners, deps.bench.claims);
  runnerTaskRoutes(app, deps.bench.tasks, deps.config);
};
