/** A stored clip's bytes (Score, Rank and Bench clips alike), whole or one byte range. */
import type { HttpClient, RequestOptions } from '../core/http.js';

/** A clip's bytes as read by {@link VideosResource.content}. */
export interface VideoContent {
  /** The bytes sent: the whole clip, or the asked-for range of it. */
  bytes: Uint8Array;
  /** The clip's media type as uploaded (`video/mp4`, say). */
  contentType: string;
  /** The clip's whole size in bytes. */
  totalBytes: number;
  /** The inclusive byte range sent (206), or null when the whole clip was sent (200). */
  range: { start: number; end: number } | null;
}

export interface VideoContentOptions extends RequestOptions {
  /** Only these bytes (inclusive `end`; to the end of the clip when `end` is left out). */
  range?: { start: number; end?: number };
}

export class VideosResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * The URL of a clip's bytes, for a `<video src>` in a page served by the Vesta server itself
   * (session mode: the dashboard's cookie authenticates it; a key cannot ride in a URL).
   * @example
   * videoElement.src = vesta.videos.contentUrl(video.videoId);
   */
  contentUrl(videoId: string): string {
    return this.http.url(`/api/v1/videos/${encodeURIComponent(videoId)}/content`);
  }

  /**
   * A stored clip's bytes: the whole clip, or one range of it. Another user's clip is
   * `NotFoundError`, exactly as an id that does not exist; a range past the end is
   * `RangeNotSatisfiableError`.
   * @example
   * const { bytes, contentType } = await vesta.videos.content(videoId);
   * const head = await vesta.videos.content(videoId, { range: { start: 0, end: 1023 } });
   */
  async content(videoId: string, opts: VideoContentOptions = {}): Promise<VideoContent> {
    const { range, ...rest } = opts;
    const res = await this.http.bytes(
      {
        method: 'GET',
        path: `/api/v1/videos/${encodeURIComponent(videoId)}/content`,
        ...(range ? { headers: { Range: `bytes=${range.start}-${range.end ?? ''}` } } : {}),
      },
      rest,
    );
    const contentType = res.headers.get('content-type') ?? 'application/octet-stream';
    const sent = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
    if (res.status === 206 && sent)
      return {
        bytes: res.bytes,
        contentType,
        totalBytes: Number(sent[3]),
        range: { start: Number(sent[1]), end: Number(sent[2]) },
      };
    return { bytes: res.bytes, contentType, totalBytes: res.bytes.byteLength, range: null };
  }
}
