/** POST /api/v1/score/{id}/videos/confirm-upload: verify the uploaded clip and queue its scoring. */
import { confirmUploadRoute } from '../sessions/confirm-upload-route.js';

export const confirmScoreUploadRoute = confirmUploadRoute('score');
