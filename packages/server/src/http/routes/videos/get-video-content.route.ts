/**
 * GET /api/v1/videos/{videoId}/content: a stored clip's bytes (a Score, Rank or Bench clip) for
 * players and downloads, with single-range requests (206, 416) so that a browser's `<video>` can
 * seek. Read through the BlobStore port only (`stat`, `read(key, range)`), so it serves from any
 * blob store. Another user's clip answers exactly as a missing id.
 */
import { Type } from 'typebox';
import type { RouteModule } from '../../app-deps.js';
import { clipBytesResponse, sendClipBytes } from '../../clip-bytes.js';
import { errorResponses } from '../../schemas/common.js';
import { userOf } from '../sessions/session-routes.js';

const VideoIdParams = Type.Object(
  {
    videoId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "The clip: a session video's `videoId`, or a Bench clip's `video_id`.",
    }),
  },
  { additionalProperties: false },
);

export const getVideoContentRoute: RouteModule = (app, { deps }) => {
  app.get(
    '/api/v1/videos/:videoId/content',
    {
      config: { resource: 'video' },
      schema: {
        operationId: 'getVideoContent',
        tags: ['Videos'],
        summary: "A stored clip's bytes (whole, or one byte range)",
        description:
          "The bytes of one of the caller's clips (Score, Rank or Bench) as stored, with the media type it was uploaded as, for players and downloads. " +
          'Send `Range: bytes=START-END` (or `START-`, or `-SUFFIX`) for part of it: 206 with `Content-Range`; a range that starts past the end is 416 `range_not_satisfiable` with `Content-Range: bytes */SIZE`; several ranges, or a header that is not a byte range, get the whole clip (200). `Accept-Ranges: bytes` is always sent. ' +
          "Another user's clip is 404 `not_found`, exactly as an id that does not exist; a clip of the caller's that has not been uploaded and confirmed is 409 `conflict`. " +
          "In the web dashboard, the session cookie authenticates it, so a page's `<video src>` can point at it.",
        params: VideoIdParams,
        headers: Type.Object({
          range: Type.Optional(
            Type.String({
              description: 'One byte range, e.g. `bytes=0-1048575`.',
              examples: ['bytes=0-1023'],
            }),
          ),
        }),
        response: {
          200: clipBytesResponse('The whole clip.'),
          206: clipBytesResponse('The asked-for range of the clip (`Content-Range: bytes START-END/SIZE`).'),
          ...errorResponses(
            'validation_failed',
            'unauthorized',
            'not_found',
            'conflict',
            'range_not_satisfiable',
          ),
        },
      },
    },
    async (request, reply) => {
      const clip = await deps.services.videos.storedClip(userOf(request).id, request.params.videoId);
      return sendClipBytes(
        reply,
        deps.blobs,
        clip,
        request.headers.range,
        (size) =>
          `the range ${JSON.stringify(request.headers.range)} starts past the end of the clip (${size} bytes)`,
      );
    },
  );
};
