/** POST /api/v1/score/reset: retire the current Score session and start an empty one. */
import { resetSessionRoute } from '../sessions/session-route.js';

export const resetScoreSessionRoute = resetSessionRoute('score');
