/**
 * The three-step upload flow shared by Score and Rank: upload-url → PUT bytes → confirm-upload,
 * then (with `wait`) polling the session until the clip is `scored` or `failed`.
 */
import { backoffDelay, defaultBackoff } from '../core/backoff.js';
import { sleep, throwIfAborted } from '../core/abort.js';
import {
  ApiConnectionError,
  ApiTimeoutError,
  InvalidArgumentError,
  ScoringFailedError,
  isTransient,
  VideoGoneError,
  WaitTimeoutError,
} from '../core/errors.js';
import type { HttpClient } from '../core/http.js';
import type { Platform } from '../core/platform.js';
import type { UploadFileOptions, UploadInput } from './source.js';
import type { Auxiliary, UploadTicket, UploadUrlRequest, VideoState, VideoSummary } from '../types.js';

/** What `onProgress` reports: bytes sent, then the confirm step, then (with `wait`) each state. */
export type UploadProgressEvent =
  | { phase: 'upload'; loaded: number; total: number | undefined }
  | { phase: 'confirm'; videoId: string }
  | { phase: 'wait'; videoId: string; state: VideoState };

export interface UploadOptions extends UploadFileOptions {
  /** Text prompt the clip was made from. */
  prompt?: string;
  /** Auxiliary prompt info for semantic dimensions (object, color, relationship, scene, appearance_style, action, object_a, object_b). */
  auxiliary?: Auxiliary;
  /** Poll the session until the clip is `scored` or `failed` (throws {@link ScoringFailedError} on `failed`). */
  wait?: boolean;
  /** Deadline of the wait, in ms (default 15 minutes). */
  waitTimeoutMs?: number;
  /** First poll interval in ms (default 500); it grows ×1.5 up to 5 s. */
  pollIntervalMs?: number;
  /** Progress callback (bytes, confirm, states). */
  onProgress?: (event: UploadProgressEvent) => void;
  /** Aborts every step, including the PUT and the waits between polls. */
  signal?: AbortSignal;
  /** The PUT fails when no byte moves for this long (default: the client's `timeoutMs`). */
  stallTimeoutMs?: number;
}

/** The outcome of an upload. With `wait`, `state` is `scored` and `video` holds the scores. */
export interface UploadResult {
  runId: string;
  videoId: string;
  state: VideoState;
  /** The clip as the session lists it (present after `wait`). */
  video: VideoSummary | undefined;
}

export interface UploadDeps {
  http: HttpClient;
  platform: Platform;
  maxRetries: number;
  timeoutMs: number;
  getRunId(signal: AbortSignal | undefined): Promise<string>;
  requestUploadUrl(
    runId: string,
    body: UploadUrlRequest,
    signal: AbortSignal | undefined,
  ): Promise<UploadTicket>;
  confirm(
    runId: string,
    videoId: string,
    signal: AbortSignal | undefined,
  ): Promise<{ state?: VideoState } | undefined>;
  listVideos(signal: AbortSignal | undefined): Promise<{ runId: string; videos: VideoSummary[] }>;
}

export async function runUpload(
  deps: UploadDeps,
  input: UploadInput,
  opts: UploadOptions,
): Promise<UploadResult> {
  const { signal } = opts;
  // An empty prompt is the caller's mistake: refused here, before the file is read or anything
  // is created on the server (Score needs a prompt; Rank's may be left out once it is locked).
  if (opts.prompt !== undefined && opts.prompt.trim() === '')
    throw new InvalidArgumentError(
      'prompt',
      'prompt must not be empty: give the text prompt the clip was made from (on Rank, leave it out once the session is locked)',
    );
  // Read errors (missing file, no permission) surface before anything is created on the server.
  const upload = await deps.platform.prepareUpload(input, opts);
  const runId = await deps.getRunId(signal);
  const body: UploadUrlRequest = { fileName: upload.fileName, contentType: upload.contentType };
  if (opts.prompt !== undefined) body.prompt = opts.prompt;
  if (opts.auxiliary !== undefined) body.auxiliary = opts.auxiliary;
  // The size, when known, lets an S3 store bind it into the presigned URL (and a too-large clip
  // is refused before any byte is sent).
  if (upload.size !== undefined && upload.size > 0) body.sizeBytes = upload.size;
  const ticket = await deps.requestUploadUrl(runId, body, signal);
  const url = new URL(ticket.uploadUrl, `${deps.http.baseUrl}/`).toString();
  // Content-Length is the body's own (set by the platform, or by the browser): an S3 store's
  // presigned URL binds the declared size, which is this body's size.
  const { 'Content-Length': _length, ...ticketHeaders } = ticket.headers;
  const headers: Record<string, string> = {
    ...ticketHeaders,
    'Content-Type': ticket.headers['Content-Type'] || upload.contentType,
  };
  const expiresAt = Date.parse(ticket.expiresAt);

  for (let attempt = 0; ; attempt++) {
    throwIfAborted(signal);
    try {
      await deps.platform.put({
        fetch: deps.http.fetch,
        url,
        method: ticket.method,
        headers,
        upload,
        onBytes: (loaded) => opts.onProgress?.({ phase: 'upload', loaded, total: upload.size }),
        signal,
        stallTimeoutMs: opts.stallTimeoutMs ?? deps.timeoutMs,
        setContentLength: deps.platform.setContentLength,
      });
      break;
    } catch (err) {
      const delay = backoffDelay(attempt, defaultBackoff);
      if (
        !isTransient(err) ||
        !upload.replayable ||
        attempt >= deps.maxRetries ||
        Date.now() + delay >= expiresAt
      )
        throw withAttempts(err, attempt + 1);
      await sleep(delay, signal);
    }
  }

  opts.onProgress?.({ phase: 'confirm', videoId: ticket.videoId });
  const confirmed = await deps.confirm(runId, ticket.videoId, signal);
  const state: VideoState = confirmed?.state ?? 'uploaded';
  if (!opts.wait) return { runId, videoId: ticket.videoId, state, video: undefined };
  const video = await waitForVideo(deps, runId, ticket.videoId, opts);
  return { runId, videoId: ticket.videoId, state: video.state, video };
}

/** A network error or timeout of the PUT, counting every attempt the loop made. */
function withAttempts(err: unknown, attempts: number): unknown {
  if (attempts <= 1) return err;
  if (err instanceof ApiConnectionError) return new ApiConnectionError(err.url, attempts, err.cause);
  if (err instanceof ApiTimeoutError) return new ApiTimeoutError(err.url, err.timeoutMs, attempts);
  return err;
}

/**
 * Polls the session until `videoId` is terminal, with growing intervals and a deadline. A session
 * that now has another run id (reset elsewhere), or no longer lists the clip once it was seen,
 * ends the wait with {@link VideoGoneError}.
 */
export async function waitForVideo(
  deps: Pick<UploadDeps, 'listVideos'>,
  runId: string,
  videoId: string,
  opts: Pick<UploadOptions, 'waitTimeoutMs' | 'pollIntervalMs' | 'onProgress' | 'signal'>,
): Promise<VideoSummary> {
  const timeoutMs = opts.waitTimeoutMs ?? 15 * 60_000;
  const deadline = Date.now() + timeoutMs;
  let interval = opts.pollIntervalMs ?? 500;
  let last: VideoState | undefined;
  for (;;) {
    const session = await deps.listVideos(opts.signal);
    const video = session.videos.find((v) => v.videoId === videoId);
    if (session.runId !== runId || video === undefined)
      throw new VideoGoneError(videoId, runId, session.runId);
    if (video && video.state !== last) {
      last = video.state;
      opts.onProgress?.({ phase: 'wait', videoId, state: video.state });
    }
    if (video?.state === 'scored') return video;
    if (video?.state === 'failed')
      throw new ScoringFailedError(videoId, video, video.error?.detail ?? video.error?.code);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new WaitTimeoutError(videoId, timeoutMs, last);
    await sleep(Math.min(interval, remaining), opts.signal);
    interval = Math.min(interval * 1.5, 5_000);
  }
}
