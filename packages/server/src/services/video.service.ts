/**
 * Videos of Score and Rank sessions: their read model, and scoring (the `evaluate-video` job).
 * Scores come only from `engine.evaluate` on the uploaded bytes; nothing else writes them.
 */
import type {
  ClipProbe,
  DimensionFailure as EngineFailure,
  DimensionInfo,
  DimensionScore,
  Engine,
  EvaluationResult,
} from '@vesta/engine';
import { EngineError } from '@vesta/engine';
import type { SessionKind } from '../db/schema.js';
import type { ScoreView, VideoView } from '../domain/views/score-rank.js';
import { conflict, notFound } from '../errors.js';
import { BlobChangedError } from '../ports/blob-store.js';
import type { BlobStore, LocalBlob } from '../ports/blob-store.js';
import type { Logger } from '../ports/logger.js';
import type { Repositories, ScoreRecord, VideoRecord } from '../repositories/index.js';

export class VideoService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly engine: Engine,
    private readonly now: () => number = Date.now,
  ) {}

  async viewsOfSession(sessionId: string): Promise<VideoView[]> {
    return this.views(await this.repos.videos.ofSession(sessionId));
  }

  async viewOf(videoId: string): Promise<VideoView | undefined> {
    const v = await this.repos.videos.byId(videoId);
    return v ? (await this.views([v]))[0] : undefined;
  }

  /**
   * A clip's stored object, for its owner only: another user's clip answers exactly as an id that
   * does not exist (404), so the answer never tells whether someone else's id exists. A clip of
   * the caller's that has no verified bytes yet (not uploaded or not confirmed) is 409; one refused
   * at confirm has none (404).
   */
  async storedClip(
    userId: string,
    videoId: string,
  ): Promise<{ blobKey: string; contentType: string; sizeBytes: number }> {
    const v = await this.repos.videos.storedClip(videoId);
    if (!v || v.user_id !== userId) throw notFound(`video ${videoId}`);
    // Refused as not a video at confirm: its bytes were deleted.
    if (v.confirmed_at === null && v.state === 'failed') throw notFound(`video ${videoId}`);
    if (v.confirmed_at === null)
      throw conflict('the clip has no stored bytes yet: it has not been uploaded and confirmed');
    const stat = await this.blobs.stat(v.blob_key);
    if (!stat) throw notFound(`video ${videoId}`);
    return { blobKey: v.blob_key, contentType: v.content_type, sizeBytes: stat.sizeBytes };
  }

  private async views(videos: VideoRecord[]): Promise<VideoView[]> {
    if (videos.length === 0) return [];
    const ids = videos.map((v) => v.id);
    const scores = await this.repos.videos.scoresOf(ids);
    const failures = await this.repos.videos.failuresOf(ids);
    return videos.map((v) => ({
      videoId: v.id,
      fileName: v.file_name,
      contentType: v.content_type,
      prompt: v.prompt,
      auxiliary: v.auxiliary === null ? null : (JSON.parse(v.auxiliary) as VideoView['auxiliary']),
      state: v.state,
      error: v.error_code === null ? null : { code: v.error_code, detail: v.error_detail ?? '' },
      sizeBytes: v.size_bytes,
      dimensions: v.dimensions === null ? [] : (JSON.parse(v.dimensions) as string[]),
      scores: scores.filter((s) => s.video_id === v.id).map(scoreView),
      failures: failures
        .filter((f) => f.video_id === v.id)
        .map((f) => ({ dimension: f.dimension, code: f.code, detail: f.detail })),
      createdAt: iso(v.created_at),
      uploadedAt: isoOrNull(v.uploaded_at),
      confirmedAt: isoOrNull(v.confirmed_at),
      scoredAt: isoOrNull(v.scored_at),
    }));
  }

  /**
   * The dimensions a Score/Rank clip is scored on: those whose registry `workflows` include the
   * session kind, that have an available method, and whose default method's requirements (prompt,
   * auxiliary keys) the upload satisfies.
   */
  dimensionsFor(
    kind: SessionKind,
    prompt: string | null,
    auxiliary: Record<string, string> | null,
  ): string[] {
    return this.engine
      .dimensions()
      .filter(
        (d) =>
          d.workflows.includes(kind) && d.defaultMethod !== null && requirementsMet(d, prompt, auxiliary),
      )
      .map((d) => d.id);
  }

  /**
   * Scores one video (the `evaluate-video` job). Engine errors about the clip mark the video
   * `failed` with the engine's code; an abort (shutdown, reset) puts it back to `queued` and
   * rethrows; any other error is rethrown for the queue to retry.
   */
  async evaluate(videoId: string, signal: AbortSignal, log: Logger): Promise<void> {
    const video = await this.repos.videos.byId(videoId);
    // `queued → scoring` (or a restart of `scoring`), a compare-and-set: anything else is settled.
    if (!video || !(await this.repos.videos.startScoring(videoId))) {
      log.info({ videoId, state: video?.state ?? 'deleted' }, 'nothing to score');
      return;
    }
    const dimensions = JSON.parse(video.dimensions ?? '[]') as DimensionScore['dimension'][];
    let result: EvaluationResult;
    // The probe confirm-upload took of this very object (one download and no second probe per
    // evaluation); a video confirmed before probes were kept is probed by the engine.
    const probe = video.probe === null ? undefined : (JSON.parse(video.probe) as Partial<ClipProbe>);
    let local: LocalBlob | undefined;
    try {
      local = await this.blobs.localFile(video.blob_key, { signal, version: video.blob_version });
      result = await this.engine.evaluate(local.path, {
        dimensions,
        ...(video.prompt === null ? {} : { prompt: video.prompt }),
        ...(video.auxiliary === null
          ? {}
          : { auxiliary: JSON.parse(video.auxiliary) as Record<string, string> }),
        ...(probe !== undefined && typeof probe.streamIndex === 'number'
          ? { probe: probe as ClipProbe }
          : {}),
        signal,
      });
    } catch (error) {
      if (signal.aborted) {
        await this.repos.videos.requeueIfScoring(videoId);
        throw error;
      }
      if (error instanceof EngineError) {
        await this.markFailed(videoId, error.code, error.message);
        log.info({ videoId, code: error.code }, 'video could not be scored');
        return;
      }
      if (error instanceof BlobChangedError) {
        await this.markFailed(
          videoId,
          'not_a_video',
          'the uploaded object was replaced after it was confirmed; upload the clip again',
        );
        log.warn({ videoId }, 'video object changed after confirm');
        return;
      }
      // The job runs again (a retry, or a wait for the blob store to come back): queued meanwhile.
      await this.repos.videos.requeueIfScoring(videoId).catch(() => undefined);
      throw error;
    } finally {
      await local?.release();
    }
    await this.store(videoId, result.scores, result.failures);
    log.info(
      {
        videoId,
        scores: result.scores.length,
        failures: result.failures.length,
        elapsedMs: result.elapsedMs,
      },
      'video scored',
    );
  }

  async markFailed(videoId: string, code: string, detail: string): Promise<void> {
    await this.repos.videos.markFailed(videoId, code, detail, this.now());
  }

  private async store(videoId: string, scores: DimensionScore[], failures: EngineFailure[]): Promise<void> {
    const t = this.now();
    await this.repos.transaction(async (tx) => {
      const failed = scores.length === 0;
      const first = failures[0];
      // `scoring → scored | failed`, a compare-and-set: a video deleted by a reset while it was
      // being scored (or settled meanwhile) keeps nothing of this evaluation.
      const settled = await tx.videos.finishScoring(videoId, {
        state: failed ? 'failed' : 'scored',
        error_code: failed ? (first?.code ?? 'method_unavailable') : null,
        error_detail: failed ? (first?.detail ?? 'no dimension could be scored') : null,
        scored_at: t,
      });
      if (!settled) return;
      await tx.videos.deleteResults(videoId);
      await tx.videos.insertScores(
        scores.map((s): ScoreRecord => ({
          video_id: videoId,
          dimension: s.dimension,
          value: s.value,
          method: s.method,
          method_version: s.methodVersion,
          frames: JSON.stringify({
            count: s.frames.count,
            width: s.frames.width,
            height: s.frames.height,
            sampling: s.frames.sampling,
            fps: s.frames.fps,
            fpsAssumed: s.frames.fpsAssumed,
          }),
          models: JSON.stringify(s.models.map((m) => ({ id: m.id, revision: m.revision }))),
          details: s.details === undefined ? null : JSON.stringify(s.details),
          elapsed_ms: s.elapsedMs,
          created_at: t,
        })),
      );
      await tx.videos.insertFailures(
        failures.map((f) => ({ video_id: videoId, dimension: f.dimension, code: f.code, detail: f.detail })),
      );
    });
  }
}

function requirementsMet(
  d: DimensionInfo,
  prompt: string | null,
  auxiliary: Record<string, string> | null,
): boolean {
  const method = d.methods.find((m) => m.id === d.defaultMethod);
  if (!method) return false;
  if (method.requires.prompt && (prompt === null || prompt === '')) return false;
  return method.requires.auxiliary.every((k) => auxiliary?.[k] !== undefined);
}

function scoreView(s: ScoreRecord): ScoreView {
  const frames = JSON.parse(s.frames) as ScoreView['frames'];
  return {
    dimension: s.dimension,
    value: s.value,
    method: s.method,
    methodVersion: s.method_version,
    frames,
    models: JSON.parse(s.models) as ScoreView['models'],
    elapsedMs: s.elapsed_ms,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}
