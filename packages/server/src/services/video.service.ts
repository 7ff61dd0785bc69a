/**
 * Videos of Score and Rank sessions (and Bench clips): their read model and their stored bytes.
 * Scoring them is `clip-evaluation.service.ts`.
 */
import type { DimensionInfo } from '@vesta/engine';
import type { ScoreView, VideoView } from '../domain/views/score-rank.js';
import { conflict, notFound } from '../errors.js';
import { promptNotice } from './prompt-notice.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Repositories, ScoreRecord, VideoRecord } from '../repositories/index.js';

export class VideoService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    /** The engine's dimensions (as they are now: a model pulled meanwhile counts), for the prompt notice. */
    private readonly dimensions: () => readonly DimensionInfo[] = () => [],
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
    const v = await this.repos.videos.storedClipOf(videoId, userId);
    if (!v) throw notFound(`video ${videoId}`);
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
    const dimensions = this.dimensions();
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
      promptNotice:
        v.state === 'scored'
          ? promptNotice(
              dimensions,
              'score',
              v.prompt,
              scores.filter((s) => s.video_id === v.id).map((s) => s.dimension),
            )
          : null,
      createdAt: iso(v.created_at),
      uploadedAt: isoOrNull(v.uploaded_at),
      confirmedAt: isoOrNull(v.confirmed_at),
      scoredAt: isoOrNull(v.scored_at),
    }));
  }
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
