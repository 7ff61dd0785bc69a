/**
 * GET /api/v1/videos/{videoId}/content: a stored clip's bytes (a Score, Rank or Bench clip) for
 * players and downloads, with single-range requests (206, 416) so that a browser's `<video>` can
 * seek. Read through the BlobStore port only (`stat`, `read(key, range)`), so it serves from any
 * blob store. Another user's clip answers exactly as a missing id.
 */
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { AppError } from '../../../errors.js';
import type { RouteModule } from '../../app-deps.js';
import { parseRange } from '../../byte-range.js';
import { errorResponses } from '../../schemas/common.js';
import { VIDEO_CONTENT_TYPES } from '../../../domain/views/score-rank.js';
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

const binary = (description: string) => ({
  description,
  content: Object.fromEntries(
    VIDEO_CONTENT_TYPES.map((t) => [
      t,
      { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }) },
    ]),
  ),
});

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
          200: binary('The whole clip.'),
          206: binary('The asked-for range of the clip (`Content-Range: bytes START-END/SIZE`).'),
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
      const size = clip.sizeBytes;
      const range = parseRange(request.headers.range, size);
      if (range.kind === 'unsatisfiable')
        throw new AppError(
          'range_not_satisfiable',
          `the range ${JSON.stringify(request.headers.range)} starts past the end of the clip (${size} bytes)`,
          { headers: { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' } },
        );
      // The bytes never change under a clip id; only its owner's browser keeps them a while.
      reply
        .type(clip.contentType)
        .header('Accept-Ranges', 'bytes')
        .header('Cache-Control', 'private, max-age=300')
        .header('X-Content-Type-Options', 'nosniff');
      if (range.kind === 'whole') {
        reply.header('Content-Length', String(size));
        return reply.send(deps.blobs.read(clip.blobKey));
      }
      reply
        .code(206)
        .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
        .header('Content-Length', String(range.end - range.start + 1));
      return reply.send(deps.blobs.read(clip.blobKey, { start: range.start, end: range.end }));
    },
  );
};
