/**
 * Container magic bytes: does the start of a file look like the container its declared media type
 * names? (The decoder's probe follows; this catches a renamed text file before FFmpeg runs.)
 */
import type { VideoContentType } from '../domain/views/score-rank.js';

/** Bytes to read from the start of a file for `matchesContainer`. */
export const SNIFF_BYTES = 64;

const ascii = (buf: Buffer, start: number, text: string): boolean =>
  buf.subarray(start, start + text.length).toString('latin1') === text;

function isIsoBmff(b: Buffer): boolean {
  // ISO base media (MP4, MOV, M4V): a box header whose type is ftyp, or an early moov/mdat/wide/free/skip box.
  return ['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].some((t) => ascii(b, 4, t));
}
const isEbml = (b: Buffer): boolean =>
  b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3;
const isAvi = (b: Buffer): boolean => ascii(b, 0, 'RIFF') && ascii(b, 8, 'AVI ');
const isGif = (b: Buffer): boolean => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a');
// MPEG program stream pack header or MPEG video sequence header; transport stream sync byte.
const isMpeg = (b: Buffer): boolean =>
  (b.length >= 4 && b[0] === 0x00 && b[1] === 0x00 && b[2] === 0x01 && (b[3] === 0xba || b[3] === 0xb3)) ||
  (b.length >= 189 ? b[0] === 0x47 && b[188] === 0x47 : b[0] === 0x47);

export function matchesContainer(contentType: VideoContentType, head: Buffer): boolean {
  switch (contentType) {
    case 'video/mp4':
    case 'video/quicktime':
    case 'video/x-m4v':
      return isIsoBmff(head);
    case 'video/webm':
    case 'video/x-matroska':
      return isEbml(head);
    case 'video/x-msvideo':
      return isAvi(head);
    case 'image/gif':
      return isGif(head);
    case 'video/mpeg':
      return isMpeg(head);
  }
}
