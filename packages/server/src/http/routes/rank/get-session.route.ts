/** GET /api/v1/rank: the caller's Rank session, created when absent. */
import { getSessionRoute } from '../sessions/session-route.js';

export const getRankSessionRoute = getSessionRoute('rank');
