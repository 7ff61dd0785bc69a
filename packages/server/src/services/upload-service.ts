/**
 * The upload flow of Score and Rank: mint an upload URL (creating the video row; the blob store
 * adapter mints the URL itself), receive the PUT as a stream into the blob store (local store; an
 * S3 store's presigned PUT goes straight to the bucket), and confirm (verify the object, keep its
 * probe, then enqueue scoring).
 */
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { Engine } from '@vesta/engine';
import { EngineError } from '@vesta/engine';
import type { Db } from '../db/connection.js';
import type { SessionsTable } from '../db/schema.js';
import {
  AppError,
  conflict,
  forbidden,
  isUpstreamFailure,
  upstreamUnavailable,
  validationFailed,
} from '../errors.js';
import { BlobChangedError } from '../ports/blob-store.js';
import type { BlobStat, BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import { SINGLE_PROCESS } from '../ports/process-liveness.js';
import type { ProcessLiveness } from '../ports/process-liveness.js';
import { VIDEO_CONTENT_TYPES } from '../domain/views/score-rank.js';
import type {
  ReceivedUpload,
  UploadUrlInput,
  UploadUrlView,
  VideoContentType,
  VideoView,
} from '../domain/views/score-rank.js';
import { EVALUATE_VIDEO_JOB, enqueueJob } from '../jobs/catalogue.js';
import { SNIFF_BYTES, matchesContainer } from './container-sniff.js';
import type { UploadTokenSigner } from './upload-token.js';
import type { VideoService } from './video-service.js';

export interface UploadServiceOptions {
  uploadMaxBytes: number;
  uploadUrlTtlSeconds: number;
}

export class UploadService {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly jobs: JobQueue,
    private readonly engine: Engine,
    private readonly videos: VideoService,
    private readonly signer: UploadTokenSigner,
    private readonly options: UploadServiceOptions,
    private readonly now: () => number = Date.now,
    private readonly liveness: ProcessLiveness = SINGLE_PROCESS,
  ) {}

  /** Validates the upload request, locks the Rank prompt, creates the video and mints its URL. */
  async createUploadUrl(session: SessionsTable, input: UploadUrlInput): Promise<UploadUrlView> {
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

    await this.db.transaction().execute(async (trx) => {
      let effectivePrompt: string | null = prompt ?? null;
      if (session.kind === 'rank') {
        const current = await trx
          .selectFrom('sessions')
          .select(['prompt', 'active'])
          .where('id', '=', session.id)
          .executeTakeFirstOrThrow();
        if (current.active !== 1)
          throw conflict(`rank run ${session.id} was reset; GET /api/v1/rank for the current run id`);
        if (current.prompt === null) {
          if (prompt === undefined)
            throw validationFailed(
              'prompt is required for the first upload of a Rank session (it locks the session to that prompt)',
            );
          await trx.updateTable('sessions').set({ prompt }).where('id', '=', session.id).execute();
        } else if (prompt !== undefined && prompt !== current.prompt) {
          throw new AppError(
            'RANK_PROMPT_MISMATCH',
            `this Rank session is locked to the prompt ${JSON.stringify(current.prompt)}; reset the session to rank clips for another prompt`,
          );
        }
        effectivePrompt = current.prompt ?? prompt ?? null;
      } else if (prompt === undefined) {
        throw validationFailed('prompt is required');
      }
      await trx
        .insertInto('videos')
        .values({
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
          probe: null,
          blob_version: null,
          dimensions: null,
          created_at: t,
          uploaded_at: null,
          confirmed_at: null,
          scored_at: null,
        })
        .execute();
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
      });
    } catch (e) {
      // No URL, no upload: the row goes (the expired-upload sweep would remove it later anyway).
      await this.db.deleteFrom('videos').where('id', '=', id).execute();
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
   * Streams a PUT body into the blob store. The token must be intact, unexpired and unused; the
   * Content-Type must equal the declared one; more bytes than allowed abort the write and leave
   * nothing behind. A failed PUT releases the URL so that it can be retried until it expires.
   *
   * The claim names this process (`upload_owner`, on PostgreSQL): a PUT retried while another
   * process's claim stands gets 409, unless that process is gone (killed mid-body), in which case
   * the retry takes the claim over. Every later write is fenced on the claim.
   */
  async receive(
    videoId: string,
    token: string | undefined,
    contentTypeHeader: string | undefined,
    contentLength: number | null,
    body: Readable,
  ): Promise<ReceivedUpload> {
    if (token === undefined || token === '')
      throw new AppError(
        'unauthorized',
        'the upload URL has no token; use the uploadUrl returned by upload-url',
      );
    const grant = this.signer.verify(token);
    if (!grant || grant.videoId !== videoId)
      throw new AppError('unauthorized', 'the upload token is invalid for this URL');
    if (grant.expiresAt <= this.now())
      throw forbidden(
        `the upload URL expired at ${new Date(grant.expiresAt).toISOString()}; request a new one with upload-url`,
      );
    const sent = (contentTypeHeader ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (sent !== grant.contentType) {
      throw new AppError(
        'unsupported_media_type',
        `Content-Type must be ${grant.contentType} (declared in upload-url), got ${sent === '' ? 'none' : sent}`,
      );
    }
    if (contentLength !== null && contentLength > grant.maxBytes) {
      throw new AppError(
        'payload_too_large',
        `the clip is ${contentLength} bytes; the limit is ${grant.maxBytes}`,
      );
    }

    const owner = this.liveness.id;
    let video = await this.db
      .updateTable('videos')
      .set({ upload_started_at: this.now(), upload_owner: owner })
      .where('id', '=', videoId)
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .returning(['blob_key'])
      .executeTakeFirst();
    if (!video) {
      const v = await this.db
        .selectFrom('videos')
        .select(['state', 'upload_started_at', 'upload_owner'])
        .where('id', '=', videoId)
        .executeTakeFirst();
      if (!v) throw new AppError('not_found', `video ${videoId} not found (its session may have been reset)`);
      if (v.state !== 'awaiting_upload')
        throw conflict(
          'this upload URL was already used; request a new one with upload-url to upload another clip',
        );
      const previous = v.upload_owner;
      if (previous !== null && previous !== owner && (await this.liveness.dead([previous])).has(previous)) {
        // The process streaming it is gone: take its claim over (only if it is still that claim).
        video = await this.db
          .updateTable('videos')
          .set({ upload_started_at: this.now(), upload_owner: owner })
          .where('id', '=', videoId)
          .where('state', '=', 'awaiting_upload')
          .where('upload_owner', '=', previous)
          .returning(['blob_key'])
          .executeTakeFirst();
      }
      if (!video) throw conflict('another upload to this URL is in progress', { retryAfterSeconds: 5 });
    }

    let write;
    try {
      write = await this.blobs.createWrite(video.blob_key);
    } catch (e) {
      await this.release(videoId, owner);
      throw isUpstreamFailure(e) ? upstreamUnavailable('the blob store cannot be written to', e) : e;
    }
    // Bytes are counted as they arrive (a listener, not a Transform stage that every chunk would
    // pass through); past the limit the write side fails, which fails the copy (the request stays
    // open for the 413), and the partial object is thrown away below.
    let bytes = 0;
    const limit = grant.maxBytes;
    const sink = write.stream;
    const count = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > limit && !sink.destroyed)
        sink.destroy(new AppError('payload_too_large', `the clip is over the limit of ${limit} bytes`));
    };
    body.on('data', count);
    try {
      await copyInto(body, sink);
      if (bytes > limit)
        throw new AppError('payload_too_large', `the clip is over the limit of ${limit} bytes`);
      if (bytes === 0) throw validationFailed('the PUT body is empty; send the clip bytes');
      if (!(await this.stillOwns(videoId, owner))) throw takenOver();
      await write.commit();
    } catch (e) {
      await write.abort();
      await this.release(videoId, owner);
      if (e instanceof AppError) throw e;
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store cannot be written to', e);
      throw e;
    }
    const done = await this.db
      .updateTable('videos')
      .set({
        state: 'uploaded',
        size_bytes: bytes,
        uploaded_at: this.now(),
        upload_started_at: null,
        upload_owner: null,
      })
      .where('id', '=', videoId)
      .where('state', '=', 'awaiting_upload')
      .where((eb) => (owner === null ? eb('upload_owner', 'is', null) : eb('upload_owner', '=', owner)))
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) {
      // Taken over by a retried PUT (this process counted as gone meanwhile): the object is theirs.
      if (await this.db.selectFrom('videos').select('id').where('id', '=', videoId).executeTakeFirst())
        throw takenOver();
      // Reset while streaming: the row is gone, so are the bytes.
      await this.blobs.delete(video.blob_key);
      throw new AppError('not_found', `video ${videoId} not found (its session was reset)`);
    }
    return { videoId, state: 'uploaded', sizeBytes: bytes };
  }

  /**
   * At start of role `all`: uploads that were streaming when the process stopped are not streaming
   * any more, so their URLs become usable again (until they expire). With process ids (PostgreSQL)
   * only the claims of processes that are gone, and those that name no process, are released.
   */
  async releaseInterruptedUploads(): Promise<number> {
    if (this.liveness.id !== null) {
      const unowned = await this.db
        .updateTable('videos')
        .set({ upload_started_at: null })
        .where('state', '=', 'awaiting_upload')
        .where('upload_started_at', 'is not', null)
        .where('upload_owner', 'is', null)
        .executeTakeFirst();
      return Number(unowned.numUpdatedRows) + (await this.releaseDeadClaims());
    }
    const res = await this.db
      .updateTable('videos')
      .set({ upload_started_at: null, upload_owner: null })
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is not', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Releases the upload claims of processes that are gone (killed mid-body), so that their URLs
   * become usable again; a live process's claim is never touched. The expired-upload sweep runs
   * it (a retried PUT does not wait for it: it takes such a claim over itself). Returns how many.
   */
  async releaseDeadClaims(): Promise<number> {
    if (this.liveness.id === null) return 0;
    const owners = await this.db
      .selectFrom('videos')
      .select('upload_owner')
      .distinct()
      .where('state', '=', 'awaiting_upload')
      .where('upload_owner', 'is not', null)
      .execute();
    const dead = await this.liveness.dead(owners.map((o) => o.upload_owner!));
    if (dead.size === 0) return 0;
    const res = await this.db
      .updateTable('videos')
      .set({ upload_started_at: null, upload_owner: null })
      .where('state', '=', 'awaiting_upload')
      .where('upload_owner', 'in', [...dead])
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Removes the videos whose upload URL expired before any `PUT` finished: such a clip can no
   * longer arrive, so it leaves its session instead of staying `awaiting_upload` for ever. A video
   * with a `PUT` streaming at that moment is left to it (the `PUT` releases or completes it). One
   * statement, so it cannot race a `PUT` that claims the video. Returns how many were removed.
   */
  async sweepExpiredUploads(at: number = this.now()): Promise<number> {
    if (this.blobs.kind !== 'local') return this.sweepExpiredDirectUploads(at);
    const removed = await this.db
      .deleteFrom('videos')
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .where('upload_expires_at', '<=', at)
      .returning(['blob_key'])
      .execute();
    // Nothing was committed for these; a failed PUT already threw its partial bytes away.
    for (const video of removed) await this.blobs.delete(video.blob_key);
    return removed.length;
  }

  /**
   * The sweep where clients upload to the store directly (S3): an expired video whose object did
   * arrive (uploaded, never confirmed) becomes `uploaded`, as the service's own PUT route would
   * have made it; the others are removed. A video whose object cannot be checked (store down)
   * waits for the next sweep.
   */
  private async sweepExpiredDirectUploads(at: number): Promise<number> {
    const expired = await this.db
      .selectFrom('videos')
      .select(['id', 'blob_key'])
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .where('upload_expires_at', '<=', at)
      .execute();
    let removed = 0;
    for (const video of expired) {
      const stat = await this.blobs.stat(video.blob_key).catch(() => undefined);
      if (stat === undefined) continue;
      if (stat) {
        await this.arrived(video.id, video.blob_key);
        continue;
      }
      const gone = await this.db
        .deleteFrom('videos')
        .where('id', '=', video.id)
        .where('state', '=', 'awaiting_upload')
        .where('upload_started_at', 'is', null)
        .executeTakeFirst();
      removed += Number(gone.numDeletedRows);
    }
    return removed;
  }

  /** A failed PUT gives its claim back (not one a retried PUT took over meanwhile). */
  private async release(videoId: string, owner: string | null): Promise<void> {
    await this.db
      .updateTable('videos')
      .set({ upload_started_at: null, upload_owner: null })
      .where('id', '=', videoId)
      .where('state', '=', 'awaiting_upload')
      .where((eb) => (owner === null ? eb('upload_owner', 'is', null) : eb('upload_owner', '=', owner)))
      .execute();
  }

  /** Before committing the object: the claim is still this process's (always so on SQLite). */
  private async stillOwns(videoId: string, owner: string | null): Promise<boolean> {
    if (owner === null) return true;
    const row = await this.db
      .selectFrom('videos')
      .select('upload_owner')
      .where('id', '=', videoId)
      .where('state', '=', 'awaiting_upload')
      .executeTakeFirst();
    return row === undefined || row.upload_owner === owner;
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
    session: SessionsTable,
    videoId: string,
    options: { dimensions?: readonly string[]; inTransaction?: (trx: Db) => Promise<void> } = {},
  ): Promise<VideoView> {
    const video = await this.db
      .selectFrom('videos')
      .selectAll()
      .where('id', '=', videoId)
      .where('session_id', '=', session.id)
      .executeTakeFirst();
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
      await this.db
        .updateTable('videos')
        .set({ state: 'failed', error_code: code, error_detail: detail })
        .where('id', '=', videoId)
        .where('state', '=', 'uploaded')
        .execute();
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
    await this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('videos')
        .set({
          state: 'queued',
          probe: JSON.stringify(probe),
          blob_version: version,
          dimensions: JSON.stringify(dimensions),
          confirmed_at: t,
        })
        .where('id', '=', videoId)
        .where('state', '=', 'uploaded')
        .executeTakeFirst();
      // Confirmed by a concurrent call already: nothing more to do.
      if (Number(moved.numUpdatedRows) === 0) return;
      await options.inTransaction?.(trx);
      await enqueueJob(
        this.jobs,
        EVALUATE_VIDEO_JOB,
        { videoId },
        {
          subject: `video:${videoId}`,
          executor: trx,
          fairnessKey: video.user_id,
          lane: session.kind === 'bench' ? 'batch' : 'interactive',
        },
      );
    });
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
  ): Promise<{
    stat: BlobStat;
    changes: { state: 'uploaded'; size_bytes: number; uploaded_at: number };
  } | null> {
    let stat;
    try {
      stat = await this.blobs.stat(blobKey);
    } catch (e) {
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store cannot be read', e);
      throw e;
    }
    if (!stat) return null;
    const changes = { state: 'uploaded' as const, size_bytes: stat.sizeBytes, uploaded_at: this.now() };
    await this.db
      .updateTable('videos')
      .set(changes)
      .where('id', '=', videoId)
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .execute();
    return { stat, changes };
  }

  private async view(videoId: string): Promise<VideoView> {
    const v = await this.videos.viewOf(videoId);
    if (!v) throw new AppError('not_found', `video ${videoId} not found`);
    return v;
  }
}

function takenOver(): AppError {
  return conflict(
    'this upload was taken over by a retried PUT while this process counted as stopped; the retried PUT stores the clip',
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

/**
 * Copies a request body into a blob write. Unlike `stream.pipeline`, a failure of the write side
 * (storage full or gone, or the size limit) leaves the request stream alone: the error is answered
 * on the open connection (which then closes, see the error handler) instead of resetting it. A
 * failure of the request side (the client went away) throws the write away.
 */
function copyInto(body: Readable, sink: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      body.off('error', onBodyError);
      body.off('aborted', onBodyError);
      sink.off('error', onSinkError);
      sink.off('finish', onFinish);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onSinkError = (error: Error): void => {
      body.unpipe(sink);
      settle(error);
    };
    const onBodyError = (error?: Error): void => {
      sink.destroy();
      settle(error ?? new Error('the client closed the connection before the body ended'));
    };
    const onFinish = (): void => settle();
    body.once('error', onBodyError);
    body.once('aborted', onBodyError);
    sink.once('error', onSinkError);
    sink.once('finish', onFinish);
    body.pipe(sink);
  });
}
