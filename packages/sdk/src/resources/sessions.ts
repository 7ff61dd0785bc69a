/** Score and Rank sessions: one per user each, with the three-step upload flow. */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type { Platform } from '../core/platform.js';
import { runUpload, type UploadOptions, type UploadResult } from '../uploads/flow.js';
import type { UploadInput } from '../uploads/source.js';
import type {
  RankLeaderboard,
  RankSession,
  ScoreSession,
  UploadConfirmation,
  UploadTicket,
  UploadUrlRequest,
} from '../types.js';

export interface SessionDeps {
  http: HttpClient;
  platform: Platform;
  maxRetries: number;
  timeoutMs: number;
}

abstract class SessionResource<TSession extends ScoreSession | RankSession> {
  protected abstract readonly kind: 'score' | 'rank';
  constructor(protected readonly deps: SessionDeps) {}

  /** The caller's session, created if absent. */
  getOrCreate(opts?: RequestOptions): Promise<TSession> {
    return this.deps.http.json<TSession>({ method: 'GET', path: `/api/v1/${this.kind}` }, opts);
  }

  /** Retires the current session and starts a new, empty one. */
  reset(opts?: RequestOptions): Promise<TSession> {
    return this.deps.http.json<TSession>({ method: 'POST', path: `/api/v1/${this.kind}/reset` }, opts);
  }

  /** Step 1 of the upload flow: a video row and a short-lived upload URL. */
  createUploadUrl(runId: string, body: UploadUrlRequest, opts?: RequestOptions): Promise<UploadTicket> {
    return this.deps.http.json<UploadTicket>(
      { method: 'POST', path: `/api/v1/${this.kind}/${encodeURIComponent(runId)}/videos/upload-url`, body },
      opts,
    );
  }

  /** Step 3 of the upload flow: the server checks the bytes and queues the clip for scoring. */
  confirmUpload(runId: string, videoId: string, opts?: RequestOptions): Promise<UploadConfirmation> {
    return this.deps.http.json<UploadConfirmation>(
      {
        method: 'POST',
        path: `/api/v1/${this.kind}/${encodeURIComponent(runId)}/videos/confirm-upload`,
        body: { videoId },
      },
      opts,
    );
  }

  /**
   * Removes one clip of a session (the current one unless `runId` is given) with its scores and
   * stored bytes; the session keeps its run id and its other clips. Removing a Rank candidate
   * ranks the others again; the last stored candidate removed lifts the prompt lock.
   * @example
   * await vesta.score.removeVideo('0f6e…');
   */
  async removeVideo(videoId: string, opts: RequestOptions & { runId?: string } = {}): Promise<void> {
    const { runId, ...request } = opts;
    const id = runId ?? (await this.getOrCreate(request)).runId;
    await this.deps.http.text(
      {
        method: 'DELETE',
        path: `/api/v1/${this.kind}/${encodeURIComponent(id)}/videos/${encodeURIComponent(videoId)}`,
      },
      request,
    );
  }

  protected upload(file: UploadInput, opts: UploadOptions): Promise<UploadResult> {
    const signal = opts.signal;
    return runUpload(
      {
        http: this.deps.http,
        platform: this.deps.platform,
        maxRetries: this.deps.maxRetries,
        timeoutMs: this.deps.timeoutMs,
        getRunId: async (s) => (await this.getOrCreate({ signal: s })).runId,
        requestUploadUrl: (runId, body, s) => this.createUploadUrl(runId, body, { signal: s }),
        confirm: (runId, videoId, s) => this.confirmUpload(runId, videoId, { signal: s }),
        listVideos: async (s) => {
          const session = await this.getOrCreate({ signal: s });
          return { runId: session.runId, videos: session.videos };
        },
      },
      file,
      { ...opts, signal },
    );
  }
}

/** The Score workflow: upload a clip, get its scores on every dimension. */
export class ScoreResource extends SessionResource<ScoreSession> {
  protected readonly kind = 'score';

  /**
   * Uploads a clip to the caller's Score session.
   * @example
   * const result = await vesta.score.upload('clip.mp4', { prompt: 'a cat surfing', wait: true });
   * console.log(result.video?.scores);
   */
  override upload(file: UploadInput, opts: UploadOptions & { prompt: string }): Promise<UploadResult> {
    return super.upload(file, opts);
  }
}

/** The Rank workflow: upload candidates for one prompt, read the leaderboard. */
export class RankResource extends SessionResource<RankSession> {
  protected readonly kind = 'rank';

  /**
   * Uploads a candidate clip; `prompt` may be left out once the session is locked to one.
   * @example
   * await vesta.rank.upload('candidate-1.mp4', { prompt: 'a red car at night', wait: true });
   */
  override upload(file: UploadInput, opts: UploadOptions = {}): Promise<UploadResult> {
    return super.upload(file, opts);
  }

  /**
   * The ranked leaderboard of a Rank session (the current one when `runId` is left out).
   * @example
   * const board = await vesta.rank.getRanked();
   */
  async getRanked(runId?: string, opts?: RequestOptions): Promise<RankLeaderboard> {
    const id = runId ?? (await this.getOrCreate(opts)).runId;
    return this.deps.http.json<RankLeaderboard>(
      { method: 'GET', path: `/api/v1/rank/${encodeURIComponent(id)}/ranked` },
      opts,
    );
  }
}
