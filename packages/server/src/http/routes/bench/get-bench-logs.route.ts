import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { runPageRoute } from './run-page.js';
import { BenchLogPage, LOG_PAGE } from './schemas.js';

export function getBenchLogsRoute(app: TypedApp, bench: BenchRunService): void {
  runPageRoute(app, {
    path: '/api/v1/bench/:id/logs',
    operationId: 'getBenchLogs',
    summary: "A Bench run's log lines",
    description: `Timestamped lines from the server, runners and the evaluator, oldest first. \`limit\` defaults to ${LOG_PAGE.defaultLimit}, at most ${LOG_PAGE.maxLimit}. To follow a run, re-read the last page as \`total\` grows.`,
    limits: LOG_PAGE,
    page: BenchLogPage,
    read: (userId, runId, page) => bench.logs(userId, runId, page),
  });
}
