import type { BenchRunService } from '../../../services/bench-run.service.js';
import type { TypedApp } from '../../app-deps.js';
import { runPageRoute } from './run-page.js';
import { BenchVideoPage, VIDEO_PAGE } from './schemas.js';

export function listBenchVideosRoute(app: TypedApp, bench: BenchRunService): void {
  runPageRoute(app, {
    path: '/api/v1/bench/:id/videos',
    operationId: 'listBenchVideos',
    summary: "List a Bench run's clips",
    description: `One item per clip (prompt × sample) in task order, with its state, runner and per-dimension scores. \`limit\` defaults to ${VIDEO_PAGE.defaultLimit}, at most ${VIDEO_PAGE.maxLimit}.`,
    limits: VIDEO_PAGE,
    page: BenchVideoPage,
    read: (userId, runId, page) => bench.videos(userId, runId, page),
  });
}
