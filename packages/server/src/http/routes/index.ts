/**
 * Every route module of the API, registered in this order by `buildApp`. One module per
 * operation (or a small group); each names its operationId in its schema.
 */
import type { RouteModule } from '../app-deps.js';
import { healthRoutes } from './ops/health.route.js';
import { openApiRoute } from './ops/openapi.route.js';
import { confirmRankUploadRoute } from './rank/confirm-upload.route.js';
import { getRankSessionRoute } from './rank/get-session.route.js';
import { getRankLeaderboardRoute } from './rank/ranked.route.js';
import { resetRankSessionRoute } from './rank/reset.route.js';
import { removeRankVideoRoute } from './rank/remove-video.route.js';
import { createRankUploadUrlRoute } from './rank/upload-url.route.js';
import { confirmScoreUploadRoute } from './score/confirm-upload.route.js';
import { getScoreSessionRoute } from './score/get-session.route.js';
import { resetScoreSessionRoute } from './score/reset.route.js';
import { removeScoreVideoRoute } from './score/remove-video.route.js';
import { createScoreUploadUrlRoute } from './score/upload-url.route.js';
import { putUploadRoute } from './uploads/put-upload.route.js';
import { getVideoContentRoute } from './videos/get-video-content.route.js';
import { benchRoutes } from './bench/index.js';
import { discoveryRoutes } from './discovery/index.js';
import { runnerProtocolRoutes } from './runners/index.js';
import { docsSiteRoutes } from '../docs/docs-site.route.js';
import { accountRoutes } from './accounts/index.js';
import { judgingAreaRoutes } from './judging/index.js';
import { dashboardRoutes } from '../dashboard/dashboard.route.js';

export const ROUTE_MODULES: readonly RouteModule[] = [
  healthRoutes,
  openApiRoute,
  // Score
  getScoreSessionRoute,
  resetScoreSessionRoute,
  createScoreUploadUrlRoute,
  confirmScoreUploadRoute,
  removeScoreVideoRoute,
  // Rank
  getRankSessionRoute,
  resetRankSessionRoute,
  createRankUploadUrlRoute,
  confirmRankUploadRoute,
  getRankLeaderboardRoute,
  removeRankVideoRoute,
  // Uploads (token-authenticated PUT)
  putUploadRoute,
  // A stored clip's bytes (players in the dashboard)
  getVideoContentRoute,
  // Bench and Discovery modules are appended here.
  benchRoutes,
  discoveryRoutes,
  // Runner protocol (issue #5)
  runnerProtocolRoutes,
  // Blind pairwise judging campaigns (issue #23)
  judgingAreaRoutes,
  // Dashboard accounts, sessions, API keys, users and invites (issue #10)
  accountRoutes,
  // Documentation site (outside /api/v1, no key)
  docsSiteRoutes,
  // The web dashboard's files (outside /api/v1, no key)
  dashboardRoutes,
];
