/** POST /api/v1/score/{id}/videos/upload-url: create a video and mint its upload URL. */
import { uploadUrlRoute } from '../sessions/upload-url-route.js';

export const createScoreUploadUrlRoute = uploadUrlRoute('score');
