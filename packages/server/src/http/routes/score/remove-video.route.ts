/** DELETE /api/v1/score/{id}/videos/{videoId}: remove one clip from the Score session. */
import { removeVideoRoute } from '../sessions/remove-video-route.js';

export const removeScoreVideoRoute = removeVideoRoute('score');
