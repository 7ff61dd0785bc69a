/** POST /api/v1/rank/reset: retire the current Rank session and start an empty one. */
import { resetSessionRoute } from '../sessions/session-route.js';

export const resetRankSessionRoute = resetSessionRoute('rank');
