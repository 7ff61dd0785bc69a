/**
 * The upload flow of Score and Rank (and of Bench clips): mint an upload URL (creating the video
 * row; the blob store adapter mints the URL itself), confirm (verify the object, keep its probe,
 * then enqueue scoring), and sweep URLs that expired unused. The `PUT` through the service's own
 * route is `upload-receiver.service.ts`; an S3 store's presigned PUT goes straight to the bucket.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from '@vesta/engine';
import { EngineError } from '@vesta/engine';
import { VIDEO_CONTENT_TYPES } from '../domain/views/score-rank.js';
import type {
  UploadUrlInput,
  UploadUrlView,
  VideoContentType,
  VideoView,
} from '../domain/views/score-rank.js';
import { AppError, conflict, isUpstreamFailure, upstreamUnavailable, validationFailed } from '../errors.js';
import { EVALUATE_VIDEO_JOB, enqueueJob } from '../jobs/catalogue.js';
import { BlobChangedError } from '../ports/blob-store.js';
import type { BlobStat, BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Repositories, SessionRecord, TransactionRepositories } from '../repositories/index.js';
import type { ArrivedVideo } from '../repositories/index.js';
import { SNIFF_BYTES, matchesContainer } from './container-sniff.js';
import type { VideoService } from './video.service.js';

export interface UploadServiceOptions {
  uploadMaxBytes: number;
  uploadUrlTtlSeconds: number;
}

export class UploadService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly jobs: JobQueue,
    private readonly engine: Engine,
    private readonly videos: VideoService,
    private readonly options: UploadServiceOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Validates the upload request, creates the video and mints its URL. A Rank session's prompt is
   * checked against its lock here but locked only when a candidate is confirmed (`confirm`): an
   * upload that never arrives leaves the session free for another prompt. `serviceBase`: where the
   * client reaches this service (asked only by a store whose uploads go through its own route).
   */
  async createUploadUrl(
    session: SessionRecord,
    input: UploadUrlInput,
    serviceBase: () => string,
  ): Promise<UploadUrlView> {
    checkFileName(input.fileName);
    const contentType = checkContentType(input.contentType);
    const prompt = input.prompt === undefined ? undefined : input.prompt.trim();
    if (prompt === '') throw validationFailed('prompt must not be blank');
    const sizeBytes = input.sizeBytes ?? null;
    if (sizeBytes !== null && sizeBytes > this.options.uploadMaxBytes)
      throw new AppError(
        'payload_too_large',
        `the clip is ${sizeBytes} bytes; the limit is ${this.options.uploadMaxBytes}`,
      );
    const id = `vid_${randomUUID().replaceAll('-', '')}`;
    const t = this.now();
    const expiresAt = t + this.options.uploadUrlTtlSeconds * 1000;
    const maxBytes = this.options.uploadMaxBytes;

    await this.repos.transaction(async (tx) => {
      let effectivePrompt: string | null = prompt ?? null;
      if (session.kind === 'rank') {
        const current = await tx.sessions.promptLock(session.id);
        if (current.active !== 1)
          throw conflict(`rank run ${session.id} was reset; GET /api/v1/rank for the current run id`);
        if (current.prompt === null) {
          if (prompt === undefined)
            throw validationFailed(
              'prompt is required until a candidate of the Rank session is stored (the first one locks the session to its prompt)',
            );
        } else if (prompt !== undefined && prompt !== current.prompt) {
          throw promptMismatch(current.prompt);
        }
        effectivePrompt = current.prompt ?? prompt ?? null;
      } else if (prompt === undefined) {
        throw validationFailed('prompt is required');
      }
      await tx.uploads.insert({
        id,
        session_id: session.id,
        user_id: session.user_id,
        file_name: input.fileName,
        content_type: contentType,
        prompt: effectivePrompt,
        auxiliary: input.auxiliary === undefined ? null : JSON.stringify(input.auxiliary),
        state: 'awaiting_upload',
        error_code: null,
        error_detail: null,
        blob_key: `videos/${id}`,
        max_bytes: maxBytes,
        size_bytes: null,
        upload_expires_at: expiresAt,
        upload_started_at: null,
        upload_owner: null,
        probe: null,
        blob_version: null,
        dimensions: null,
        created_at: t,
        uploaded_at: null,
        confirmed_at: null,
        scored_at: null,
      });
    });

    let target;
    try {
      target = await this.blobs.uploadTarget({
        key: `videos/${id}`,
        videoId: id,
        contentType,
        maxBytes,
        sizeBytes,
        expiresAt,
        serviceBase,
      });
    } catch (e) {
      // No URL, no upload: the row goes (the expired-upload sweep would remove it later anyway).
      await this.repos.uploads.delete(id);
      throw isUpstreamFailure(e) ? upstreamUnavailable('the blob store cannot mint an upload URL', e) : e;
    }
    return {
      videoId: id,
      uploadUrl: target.url,
      method: 'PUT',
      headers: target.headers as UploadUrlView['headers'],
      expiresAt: new Date(expiresAt).toISOString(),
      maxBytes: target.maxBytes,
    };
  }

  /**
   * The videos whose upload URL expired with no `PUT` streaming. One whose object is in the store
   * (sent straight to the bucket, or committed by a `PUT` whose process stopped before it could
   * record it) becomes `uploaded`, as a finished `PUT` makes it; the others can no longer arrive and
   * leave their session instead of staying `awaiting_upload` for ever. A video whose object cannot
   * be checked (store down) waits for the next sweep. Each move is a compare-and-set on an
   * unclaimed `awaiting_upload`, so it cannot race a `PUT` that claims the video. Returns how many
   * were removed.
   */
  async sweepExpiredUploads(at: number = this.now()): Promise<number> {
    let removed = 0;
    for (const video of await this.repos.uploads.expired(at)) {
      const stat = await this.blobs.stat(video.blob_key).catch(() => undefined);
      if (stat === undefined) continue;
      if (stat)
        await this.repos.uploads.markArrived(video.id, {
          state: 'uploaded',
          size_bytes: stat.sizeBytes,
          uploaded_at: this.now(),
        });
      else if (await this.repos.uploads.deleteIfUnclaimed(video.id)) removed++;
    }
    return removed;
  }

  /**
   * Confirms an upload: checks the object (present, size, magic bytes, engine probe), then moves
   * the video to `queued` and enqueues `evaluate-video`. Confirming again returns the same video.
   * `options.dimensions` replaces the session-kind rule for what to score (Bench clips are scored
   * on the run's dimensions of their clip group). `options.inTransaction` runs in the transaction
   * that queues the video and enqueues its evaluation, before the enqueue; when it throws, neither
   * happens (a runner's `complete` moves its task there, so the three are one step).
   */
  async confirm(
    session: SessionRecord,
    videoId: string,
    options: {
      dimensions?: readonly string[];
      inTransaction?: (tx: TransactionRepositories) => Promise<void>;
    } = {},
  ): Promise<VideoView> {
    const video = await this.repos.uploads.inSession(videoId, session.id);
    if (!video) throw new AppError('not_found', `video ${videoId} not found in run ${session.id}`);
    let checked: BlobStat | null = null;
    if (video.state === 'awaiting_upload' && video.upload_started_at === null) {
      // A store the client uploads to directly (S3's presigned PUT): the object is there or not.
      const arrived = await this.arrived(videoId, video.blob_key);
      if (arrived) {
        Object.assign(video, arrived.changes);
        checked = arrived.stat;
      }
    }
    if (video.state === 'awaiting_upload') {
      throw conflict(
        video.upload_started_at === null
          ? 'the clip has not been uploaded yet: PUT it to uploadUrl first'
          : 'the clip is still being uploaded',
        video.upload_started_at === null ? {} : { retryAfterSeconds: 5 },
      );
    }
    if (video.state === 'failed' && video.confirmed_at === null) {
      // Verification failed earlier: the same answer again.
      throw new AppError(
        'invalid_video',
        `the upload is not a usable video (${video.error_code ?? 'invalid'}): ${video.error_detail ?? ''}`,
      );
    }
    if (video.state !== 'uploaded') return this.view(videoId);

    const contentType = video.content_type as VideoContentType;
    const fail = async (code: string, detail: string): Promise<never> => {
      await this.repos.uploads.refuse(videoId, code, detail);
      await this.blobs.delete(video.blob_key).catch(() => undefined);
      throw new AppError('invalid_video', `the upload is not a usable video (${code}): ${detail}`);
    };

    let probe;
    let version: string | null = null;
    try {
      const stat = checked ?? (await this.blobs.stat(video.blob_key));
      if (!stat)
        throw conflict('the uploaded object is missing; upload the clip again with a new upload-url');
      if (stat.sizeBytes === 0) return await fail('empty_file', 'the uploaded object is empty');
      if (stat.sizeBytes > video.max_bytes)
        return await fail(
          'file_too_large',
          `the object is ${stat.sizeBytes} bytes; the limit is ${video.max_bytes}`,
        );
      version = stat.version;
      const head = await this.blobs.head(video.blob_key, SNIFF_BYTES);
      if (!matchesContainer(contentType, head))
        return await fail('not_a_video', `the bytes are not a ${contentType} container`);
      const local = await this.blobs.localFile(video.blob_key, { version });
      try {
        probe = await this.engine.probe(local.path);
      } finally {
        await local.release();
      }
    } catch (e) {
      if (e instanceof AppError) throw e;
      if (e instanceof BlobChangedError)
        throw conflict('the uploaded object changed while it was checked; confirm again', {
          retryAfterSeconds: 1,
        });
      if (e instanceof EngineError) return fail(e.code, e.message);
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store or the decoder is unavailable', e);
      throw e;
    }

    const dimensions =
      options.dimensions ??
      this.videos.dimensionsFor(
        session.kind,
        video.prompt,
        video.auxiliary === null ? null : (JSON.parse(video.auxiliary) as Record<string, string>),
      );
    const t = this.now();
    try {
      await this.repos.transaction(async (tx) => {
        const moved = await tx.uploads.confirm(videoId, {
          probe: JSON.stringify(probe),
          blob_version: version,
          dimensions: JSON.stringify(dimensions),
          confirmed_at: t,
        });
        // Confirmed by a concurrent call already: nothing more to do.
        if (!moved) return;
        // The first stored candidate locks a Rank session to its prompt; one uploaded for another
        // prompt while a different candidate got there first is refused (and rolled back).
        if (session.kind === 'rank' && video.prompt !== null) {
          const locked = await tx.sessions.lockPrompt(session.id, video.prompt);
          if (locked !== video.prompt) throw promptMismatch(locked, true);
        }
        await options.inTransaction?.(tx);
        await enqueueJob(
          this.jobs,
          EVALUATE_VIDEO_JOB,
          { videoId },
          {
            subject: `video:${videoId}`,
            executor: tx.queueExecutor,
            fairnessKey: video.user_id,
            lane: session.kind === 'bench' ? 'batch' : 'interactive',
          },
        );
      });
    } catch (e) {
      // A refused candidate leaves nothing behind: no card waiting in the session, no bytes.
      if (e instanceof AppError && e.code === 'RANK_PROMPT_MISMATCH') {
        await this.repos.uploads.delete(videoId);
        await this.blobs.delete(video.blob_key).catch(() => undefined);
      }
      throw e;
    }
    return this.view(videoId);
  }

  /**
   * For an upload that went straight to the store (no PUT through this service): when its object
   * is there, the video becomes `uploaded` (what the service's own PUT route does on success) and
   * the changed columns are returned; null while nothing has arrived.
   */
  private async arrived(
    videoId: string,
    blobKey: string,
  ): Promise<{ stat: BlobStat; changes: ArrivedVideo } | null> {
    let stat;
    try {
      stat = await this.blobs.stat(blobKey);
    } catch (e) {
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store cannot be read', e);
      throw e;
    }
    if (!stat) return null;
    const changes: ArrivedVideo = { state: 'uploaded', size_bytes: stat.sizeBytes, uploaded_at: this.now() };
    await this.repos.uploads.markArrived(videoId, changes);
    return { stat, changes };
  }

  private async view(videoId: string): Promise<VideoView> {
    const v = await this.videos.viewOf(videoId);
    if (!v) throw new AppError('not_found', `video ${videoId} not found`);
    return v;
  }
}

/**
 * 400 `RANK_PROMPT_MISMATCH`: the session is locked to `locked`. `atConfirm`: the candidate was
 * uploaded for another prompt while a different candidate was stored first, and is removed.
 */
function promptMismatch(locked: string, atConfirm = false): AppError {
  return new AppError(
    'RANK_PROMPT_MISMATCH',
    atConfirm
      ? `another candidate was stored first and locked this Rank session to the prompt ${JSON.stringify(locked)}; this clip was uploaded for a different prompt and is removed. Reset the session to rank clips for another prompt`
      : `this Rank session is locked to the prompt ${JSON.stringify(locked)}; reset the session to rank clips for another prompt`,
  );
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function checkFileName(name: string): void {
  if (name.includes('/') || name.includes('\\'))
    throw validationFailed('fileName must not contain path separators');
  if (name.includes('..')) throw validationFailed('fileName must not contain ".."');
  if (CONTROL.test(name)) throw validationFailed('fileName must not contain control characters');
  if (name.trim() === '') throw validationFailed('fileName must not be blank');
}

export function checkContentType(value: string): VideoContentType {
  const ct = value.trim().toLowerCase();
  const found = VIDEO_CONTENT_TYPES.find((t) => t === ct);
  if (!found)
    throw validationFailed(
      `contentType must be one of ${VIDEO_CONTENT_TYPES.join(', ')}; got ${JSON.stringify(value)}`,
    );
  return found;
}
