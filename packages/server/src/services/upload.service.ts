/**
 * The upload flow of Score and Rank (and of Bench clips): mint an upload URL (creating the video
 * row; the blob store adapter mints the URL itself), confirm (verify the clip, then queue its
 * evaluation: `clip-intake.service.ts`), and sweep URLs that expired unused. The `PUT` through the service's own
 * route is `upload-receiver.service.ts`; an S3 store's presigned PUT goes straight to the bucket.
 */
import { randomUUID } from 'node:crypto';
import type { SessionKind } from '../db/schema.js';
import { VIDEO_CONTENT_TYPES } from '../domain/views/score-rank.js';
import type {
  UploadUrlInput,
  UploadUrlView,
  VideoContentType,
  VideoView,
} from '../domain/views/score-rank.js';
import { AppError, conflict, isUpstreamFailure, upstreamUnavailable, validationFailed } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Repositories, SessionRecord } from '../repositories/index.js';
import type { ClipIntakeService } from './clip-intake.service.js';
import { currentSession } from './ownership.js';
import type { VideoService } from './video.service.js';

export interface UploadServiceOptions {
  uploadMaxBytes: number;
  uploadUrlTtlSeconds: number;
}

export class UploadService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly intake: ClipIntakeService,
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
   * Confirms an upload to the caller's current session `runId` of `kind` (404/403/409 as
   * `SessionService.requireCurrent`): the clip is verified (`ClipIntakeService.verify`), then one
   * transaction queues its evaluation on the session kind's dimensions and, for Rank, locks the
   * session to the clip's prompt. Confirming again returns the same video.
   */
  async confirm(userId: string, kind: SessionKind, runId: string, videoId: string): Promise<VideoView> {
    const session = currentSession(await this.repos.sessions.ownedBy(runId, userId, kind), kind, runId);
    const video = await this.repos.uploads.inSession(videoId, session.id);
    if (!video) throw new AppError('not_found', `video ${videoId} not found in run ${session.id}`);
    const verdict = await this.intake.verify(video);
    if (verdict.kind === 'refused') throw await this.intake.refuse(video, verdict);
    if (verdict.kind === 'verified') {
      try {
        await this.repos.transaction(async (tx) => {
          const queued = await this.intake.queueEvaluation(tx, video, verdict, {
            workflow: session.kind,
            lane: session.kind === 'bench' ? 'batch' : 'interactive',
          });
          // The first stored candidate locks a Rank session to its prompt; one uploaded for another
          // prompt while a different candidate got there first is refused (and rolled back).
          if (queued && session.kind === 'rank' && video.prompt !== null) {
            const locked = await tx.sessions.lockPrompt(session.id, video.prompt);
            if (locked !== video.prompt) throw promptMismatch(locked, true);
          }
        });
      } catch (e) {
        // A refused candidate leaves nothing behind: no card waiting in the session, no bytes.
        if (e instanceof AppError && e.code === 'RANK_PROMPT_MISMATCH') {
          await this.repos.uploads.delete(videoId);
          await this.blobs.delete(video.blob_key).catch(() => undefined);
        }
        throw e;
      }
    }
    const view = await this.videos.viewOf(videoId);
    if (!view) throw new AppError('not_found', `video ${videoId} not found`);
    return view;
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
