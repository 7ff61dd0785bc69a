/**
 * A stored clip's bytes as a reply, whole (200) or one byte range (206), and their OpenAPI
 * responses: one home for `GET /api/v1/videos/{videoId}/content` and a judging campaign's clip
 * content, which serve the same bytes under different ids.
 */
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { VIDEO_CONTENT_TYPES } from '../domain/views/score-rank.js';
import type { BlobStore } from '../ports/blob-store.js';
import { parseRange } from './byte-range.js';

/** A clip as stored: where its bytes are, their media type and size. */
export interface StoredClip {
  blobKey: string;
  contentType: string;
  sizeBytes: number;
}

/** The OpenAPI response of a clip's bytes, in each media type a clip may be stored as. */
export const clipBytesResponse = (description: string) => ({
  description,
  content: Object.fromEntries(
    VIDEO_CONTENT_TYPES.map((t) => [
      t,
      { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }) },
    ]),
  ),
});

/**
 * Sends the clip's bytes for the request's `Range` header: the whole clip, the one range asked
 * for, or 416 `range_not_satisfiable` (its detail: `unsatisfiable(size)`) for a range past its end.
 */
export function sendClipBytes(
  reply: FastifyReply,
  blobs: BlobStore,
  clip: StoredClip,
  rangeHeader: string | undefined,
  unsatisfiable: (size: number) => string,
): FastifyReply {
  const size = clip.sizeBytes;
  const range = parseRange(rangeHeader, size);
  if (range.kind === 'unsatisfiable')
    throw new AppError('range_not_satisfiable', unsatisfiable(size), {
      headers: { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
    });
  // The bytes never change under a clip id; only the caller's browser keeps them a while.
  reply
    .type(clip.contentType)
    .header('Accept-Ranges', 'bytes')
    .header('Cache-Control', 'private, max-age=300')
    .header('X-Content-Type-Options', 'nosniff');
  if (range.kind === 'whole') {
    reply.header('Content-Length', String(size));
    return reply.send(blobs.read(clip.blobKey));
  }
  reply
    .code(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
    .header('Content-Length', String(range.end - range.start + 1));
  return reply.send(blobs.read(clip.blobKey, { start: range.start, end: range.end }));
}
