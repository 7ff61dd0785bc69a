/** DELETE /api/v1/rank/{id}/videos/{videoId}: remove one candidate from the Rank session. */
import { removeVideoRoute } from '../sessions/remove-video-route.js';

export const removeRankVideoRoute = removeVideoRoute('rank');
