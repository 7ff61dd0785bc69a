/**
 * A clip's way in, in two steps:
 *
 * 1. `verify`: is the uploaded object a usable video? It is stat'ed, its first bytes sniffed and the
 *    engine probes it. Nothing is written: the verdict says what to write. Shared by a Score/Rank
 *    confirm (`upload.service.ts`) and a runner's `complete` (`runner-task.service.ts`).
 * 2. `queueEvaluation`, inside the caller's transaction: the video becomes `queued` with its probe
 *    and dimensions and its `evaluate-video` job is enqueued; the caller moves its own state (a
 *    Rank prompt lock) in the same transaction, so all of it commits or none does. (A runner's
 *    `complete` confirms the clip with its task's delivery in the Bench run's repository,
 *    `BenchLifecycleRepository.deliver`, and enqueues the same job, `jobs/catalogue.ts`.)
 *
 * A refused clip (`refuse`) becomes `failed` and its bytes are deleted.
 */
import type { ClipProbe, Engine } from '@vesta/engine';
import { EngineError } from '@vesta/engine';
import type { SessionKind } from '../db/schema.js';
import type { VideoContentType } from '../domain/views/score-rank.js';
import { AppError, conflict, isUpstreamFailure, upstreamUnavailable } from '../errors.js';
import { evaluationJob } from '../jobs/catalogue.js';
import { BlobChangedError } from '../ports/blob-store.js';
import type { BlobStat, BlobStore } from '../ports/blob-store.js';
import type { JobLane, JobQueue } from '../ports/job-queue.js';
import type {
  ArrivedVideo,
  Repositories,
  TransactionRepositories,
  VideoRecord,
} from '../repositories/index.js';
import { SNIFF_BYTES, matchesContainer } from './container-sniff.js';

/** What verifying a clip found; `arrived`: its object was found in the store by this check (a direct upload). */
export type ClipVerdict =
  /** Confirmed before: nothing to verify or queue. */
  | { kind: 'confirmed' }
  | { kind: 'verified'; probe: ClipProbe; version: string | null; arrived: ArrivedVideo | null }
  | { kind: 'refused'; code: string; detail: string; arrived: ArrivedVideo | null };

export class ClipIntakeService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly jobs: JobQueue,
    private readonly engine: Engine,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Verifies the clip of `video` (stat, magic bytes, engine probe); writes nothing. 409 while it has
   * not arrived, or when its object is missing or changed while it was checked; 400 `invalid_video`
   * again for one refused before; 503 when the store or the decoder cannot be reached.
   */
  async verify(video: VideoRecord): Promise<ClipVerdict> {
    let stat: BlobStat | null = null;
    let arrived: ArrivedVideo | null = null;
    if (video.state === 'awaiting_upload' && video.upload_started_at === null) {
      // A store the client uploads to directly (S3's presigned PUT): the object is there or not.
      stat = await this.statOrUnavailable(video.blob_key);
      if (stat) arrived = { state: 'uploaded', size_bytes: stat.sizeBytes, uploaded_at: this.now() };
    }
    if (video.state === 'awaiting_upload' && arrived === null)
      throw conflict(
        video.upload_started_at === null
          ? 'the clip has not been uploaded yet: PUT it to uploadUrl first'
          : 'the clip is still being uploaded',
        video.upload_started_at === null ? {} : { retryAfterSeconds: 5 },
      );
    // Refused earlier: the same answer again.
    if (video.state === 'failed' && video.confirmed_at === null)
      throw invalidVideo(video.error_code ?? 'invalid', video.error_detail ?? '');
    if (video.state !== 'uploaded' && arrived === null) return { kind: 'confirmed' };

    const refused = (code: string, detail: string): ClipVerdict => ({
      kind: 'refused',
      code,
      detail,
      arrived,
    });
    const contentType = video.content_type as VideoContentType;
    try {
      stat ??= await this.blobs.stat(video.blob_key);
      if (!stat)
        throw conflict('the uploaded object is missing; upload the clip again with a new upload-url');
      if (stat.sizeBytes === 0) return refused('empty_file', 'the uploaded object is empty');
      if (stat.sizeBytes > video.max_bytes)
        return refused(
          'file_too_large',
          `the object is ${stat.sizeBytes} bytes; the limit is ${video.max_bytes}`,
        );
      const version = stat.version;
      const head = await this.blobs.head(video.blob_key, SNIFF_BYTES);
      if (!matchesContainer(contentType, head))
        return refused('not_a_video', `the bytes are not a ${contentType} container`);
      const local = await this.blobs.localFile(video.blob_key, { version });
      try {
        return { kind: 'verified', probe: await this.engine.probe(local.path), version, arrived };
      } finally {
        await local.release();
      }
    } catch (e) {
      if (e instanceof AppError) throw e;
      if (e instanceof BlobChangedError)
        throw conflict('the uploaded object changed while it was checked; confirm again', {
          retryAfterSeconds: 1,
        });
      if (e instanceof EngineError) return refused(e.code, e.message);
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store or the decoder is unavailable', e);
      throw e;
    }
  }

  /** A refused clip: `failed`, its bytes deleted. Returns the 400 `invalid_video` to answer. */
  async refuse(video: VideoRecord, verdict: Extract<ClipVerdict, { kind: 'refused' }>): Promise<AppError> {
    if (verdict.arrived) await this.repos.uploads.markArrived(video.id, verdict.arrived);
    await this.repos.uploads.refuse(video.id, verdict.code, verdict.detail);
    await this.blobs.delete(video.blob_key).catch(() => undefined);
    return invalidVideo(verdict.code, verdict.detail);
  }

  /**
   * In the caller's transaction: the verified video becomes `queued` with its probe, version and
   * dimensions — a Bench task's (`dimensions`), or those of a Score/Rank session's kind
   * (`workflow`, see `dimensionsFor`) — and its evaluation is enqueued on `lane`. False (nothing
   * written) when a concurrent confirm queued it first.
   */
  async queueEvaluation(
    tx: TransactionRepositories,
    video: VideoRecord,
    verdict: Extract<ClipVerdict, { kind: 'verified' }>,
    options: ({ dimensions: readonly string[] } | { workflow: SessionKind }) & { lane: JobLane },
  ): Promise<boolean> {
    const dimensions =
      'dimensions' in options ? options.dimensions : this.dimensionsFor(options.workflow, video);
    if (verdict.arrived) await tx.uploads.markArrived(video.id, verdict.arrived);
    const moved = await tx.uploads.confirm(video.id, {
      probe: JSON.stringify(verdict.probe),
      blob_version: verdict.version,
      dimensions: JSON.stringify(dimensions),
      confirmed_at: this.now(),
    });
    if (!moved) return false;
    await this.jobs.enqueue(...evaluationJob(video, options.lane, tx.queueExecutor));
    return true;
  }

  /**
   * The dimensions a Score/Rank clip is scored on: those whose registry `workflows` include the
   * session kind, that have an available method, and whose default method's requirements (prompt,
   * auxiliary keys) the upload satisfies. (A Bench clip is scored on its task's dimensions.)
   */
  private dimensionsFor(kind: SessionKind, video: Pick<VideoRecord, 'prompt' | 'auxiliary'>): string[] {
    const auxiliary =
      video.auxiliary === null ? null : (JSON.parse(video.auxiliary) as Record<string, string>);
    return this.engine
      .dimensions()
      .filter((d) => {
        if (!d.workflows.includes(kind) || d.defaultMethod === null) return false;
        const method = d.methods.find((m) => m.id === d.defaultMethod);
        if (!method) return false;
        if (method.requires.prompt && (video.prompt === null || video.prompt === '')) return false;
        return method.requires.auxiliary.every((k) => auxiliary?.[k] !== undefined);
      })
      .map((d) => d.id);
  }

  private async statOrUnavailable(key: string): Promise<BlobStat | null> {
    try {
      return await this.blobs.stat(key);
    } catch (e) {
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store cannot be read', e);
      throw e;
    }
  }
}

function invalidVideo(code: string, detail: string): AppError {
  return new AppError('invalid_video', `the upload is not a usable video (${code}): ${detail}`);
}
