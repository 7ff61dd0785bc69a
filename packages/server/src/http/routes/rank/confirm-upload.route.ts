/** POST /api/v1/rank/{id}/videos/confirm-upload: verify the uploaded clip and queue its scoring. */
import { confirmUploadRoute } from '../sessions/confirm-upload-route.js';

export const confirmRankUploadRoute = confirmUploadRoute('rank');
