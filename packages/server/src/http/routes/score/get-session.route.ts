/** GET /api/v1/score: the caller's Score session, created when absent. */
import { getSessionRoute } from '../sessions/session-route.js';

export const getScoreSessionRoute = getSessionRoute('score');
