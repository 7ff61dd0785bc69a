/**
 * The upload `PUT` through the service's own route (the local blob store's upload URL): the token
 * checked, the video claimed for this process, the body streamed into the blob store, and the
 * claims of interrupted PUTs given back. An S3 store's presigned `PUT` goes straight to the bucket
 * and never comes here.
 */
import type { Readable, Writable } from 'node:stream';
import type { ReceivedUpload } from '../domain/views/score-rank.js';
import {
  AppError,
  conflict,
  forbidden,
  isUpstreamFailure,
  upstreamUnavailable,
  validationFailed,
} from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import { SINGLE_PROCESS } from '../ports/process-liveness.js';
import type { ProcessLiveness } from '../ports/process-liveness.js';
import type { Repositories } from '../repositories/index.js';
import type { UploadTokenSigner } from './upload-token.js';

export class UploadReceiverService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly signer: UploadTokenSigner,
    private readonly now: () => number = Date.now,
    private readonly liveness: ProcessLiveness = SINGLE_PROCESS,
  ) {}

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

    const uploads = this.repos.uploads;
    const owner = this.liveness.id;
    let video = await uploads.claim(videoId, owner, this.now());
    if (!video) {
      const v = await uploads.claimOf(videoId);
      if (!v) throw new AppError('not_found', `video ${videoId} not found (its session may have been reset)`);
      if (v.state !== 'awaiting_upload')
        throw conflict(
          'this upload URL was already used; request a new one with upload-url to upload another clip',
        );
      const previous = v.upload_owner;
      if (previous !== null && previous !== owner && (await this.liveness.dead([previous])).has(previous)) {
        // The process streaming it is gone: take its claim over (only if it is still that claim).
        video = await uploads.takeOver(videoId, previous, owner, this.now());
      }
      if (!video) throw conflict('another upload to this URL is in progress', { retryAfterSeconds: 5 });
    }

    let write;
    try {
      write = await this.blobs.createWrite(video.blob_key);
    } catch (e) {
      await uploads.release(videoId, owner);
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
      await uploads.release(videoId, owner);
      if (e instanceof AppError) throw e;
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store cannot be written to', e);
      throw e;
    }
    if (!(await uploads.finishPut(videoId, owner, bytes, this.now()))) {
      // Taken over by a retried PUT (this process counted as gone meanwhile): the object is theirs.
      if (await this.repos.videos.exists(videoId)) throw takenOver();
      // Reset (or the clip removed) while streaming: the row is gone, so are the bytes.
      await this.blobs.delete(video.blob_key);
      throw new AppError(
        'not_found',
        `video ${videoId} not found (its session was reset or the clip removed)`,
      );
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
      return (await this.repos.uploads.releaseUnowned()) + (await this.releaseDeadClaims());
    }
    return this.repos.uploads.releaseAll();
  }

  /**
   * Releases the upload claims of processes that are gone (killed mid-body), so that their URLs
   * become usable again; a live process's claim is never touched. The expired-upload sweep runs
   * it (a retried PUT does not wait for it: it takes such a claim over itself). Returns how many.
   */
  async releaseDeadClaims(): Promise<number> {
    if (this.liveness.id === null) return 0;
    const owners = await this.repos.uploads.claimOwners();
    const dead = await this.liveness.dead(owners);
    if (dead.size === 0) return 0;
    return this.repos.uploads.releaseClaimsOf([...dead]);
  }

  /** Before committing the object: the claim is still this process's (always so on SQLite). */
  private async stillOwns(videoId: string, owner: string | null): Promise<boolean> {
    if (owner === null) return true;
    const row = await this.repos.uploads.ownerWhileAwaiting(videoId);
    return row === undefined || row.upload_owner === owner;
  }
}

function takenOver(): AppError {
  return conflict(
    'this upload was taken over by a retried PUT while this process counted as stopped; the retried PUT stores the clip',
  );
}

/**
 * Copies a request body into a blob write. Unlike `stream.pipeline`, a failure of the write side
 * (storage full or gone, or the size limit) leaves the request stream alone: the error is answered
 * on the open connection (which then closes, see the error handler) instead of resetting it. A
 * failure of the request side (the client went away) throws the write away at once: its `close`
 * before the body ended, or a body that was already torn down while the claim was being taken.
 */
function copyInto(body: Readable, sink: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      body.off('error', onBodyError);
      body.off('close', onBodyClose);
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
      // A write still in flight reports the destroy as its own error (ERR_STREAM_DESTROYED) after
      // this settles; the write is being thrown away, and an unheard 'error' would end the process.
      sink.on('error', ignoreTeardown);
      sink.destroy();
      settle(error ?? clientGone());
    };
    // A body that ended normally closes too (before the sink finishes): only an early close counts.
    const onBodyClose = (): void => {
      if (!body.readableEnded) onBodyError();
    };
    const onFinish = (): void => settle();
    if (body.destroyed && !body.readableEnded) {
      onBodyError();
      return;
    }
    body.once('error', onBodyError);
    body.once('close', onBodyClose);
    sink.once('error', onSinkError);
    sink.once('finish', onFinish);
    body.pipe(sink);
  });
}

function ignoreTeardown(): void {
  // The sink's errors after the body failed: its write is aborted already.
}

function clientGone(): Error {
  return new Error('the client closed the connection before the body ended');
}
