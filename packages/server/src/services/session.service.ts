/**
 * Score and Rank sessions: one current session per user and kind, created on first read. A reset
 * retires the current run id (it then answers 409 conflict), cancels its pending scoring jobs,
 * deletes its videos, their scores and their stored bytes, and starts an empty session with a
 * new run id.
 */
import { randomUUID } from 'node:crypto';
import type { SessionKind } from '../db/schema.js';
import type { RankSessionView, ScoreSessionView, VideoView } from '../domain/views/score-rank.js';
import { isUpstreamFailure, notFound, upstreamUnavailable } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { Repositories, SessionRecord } from '../repositories/index.js';
import type { VideoService } from './video.service.js';
import { currentSession } from './ownership.js';

export class SessionService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly jobs: JobQueue,
    private readonly videos: VideoService,
    private readonly now: () => number = Date.now,
  ) {}

  /** The user's current session of `kind`, created when absent. */
  async getOrCreate(userId: string, kind: SessionKind): Promise<SessionRecord> {
    const existing = await this.repos.sessions.current(userId, kind);
    if (existing) return existing;
    return this.repos.transaction(async (tx) => {
      const current = await tx.sessions.current(userId, kind);
      if (current) return current;
      const row = this.fresh(userId, kind);
      await tx.sessions.insert(row);
      return row;
    });
  }

  /**
   * The session `runId` of `kind` when it is the caller's current one: 404 when it does not exist
   * (or is another kind), 403 when it is someone else's, 409 when it was reset.
   */
  async requireCurrent(userId: string, kind: SessionKind, runId: string): Promise<SessionRecord> {
    return currentSession(await this.repos.sessions.ownedBy(runId, userId, kind), kind, runId);
  }

  /** Retires the current session (if any) and returns a new, empty one. */
  async reset(userId: string, kind: SessionKind, log: Logger): Promise<SessionRecord> {
    const { fresh, videos } = await this.repos.transaction(async (tx) => {
      const old = await tx.sessions.current(userId, kind);
      let oldVideos: Array<{ id: string; blob_key: string }> = [];
      if (old) {
        oldVideos = await tx.videos.blobsOfSession(old.id);
        await tx.sessions.retire(old.id, this.now());
        await tx.videos.deleteOfSession(old.id);
      }
      const row = this.fresh(userId, kind);
      await tx.sessions.insert(row);
      return { fresh: row, videos: oldVideos };
    });
    // The rows are gone; now stop their jobs and free their bytes.
    for (const v of videos) {
      await this.jobs.cancelBySubject(`video:${v.id}`);
      await this.blobs
        .delete(v.blob_key)
        .catch((e: unknown) =>
          log.warn({ err: e, videoId: v.id }, 'could not delete the bytes of a reset video'),
        );
    }
    return fresh;
  }

  /**
   * Removes one clip from the caller's current session `runId` of `kind`: 404 when the session has
   * no such clip (another user's clip included: it is not in this session), 403/404/409 for the
   * session as `requireCurrent`. Any state may be removed: a clip being scored has its job
   * cancelled (a result that still arrives is dropped, as after a reset), one being uploaded has its
   * PUT refused at the end (and its bytes thrown away). The bytes go first: a blob store that cannot
   * delete them answers 503 and nothing is removed or cancelled, so a retry finishes the job; then
   * the scoring job is cancelled (an evaluation that starts in between fails on the missing bytes,
   * and its result is dropped with the row); then the row with
   * its scores and failures, in one transaction that also unlocks a Rank session's prompt when no
   * stored candidate is left.
   */
  async removeVideo(userId: string, kind: SessionKind, runId: string, videoId: string): Promise<void> {
    const session = await this.requireCurrent(userId, kind, runId);
    const video = await this.repos.videos.byId(videoId);
    if (!video || video.session_id !== session.id) throw notFound(`video ${videoId} in ${kind} run ${runId}`);
    try {
      await this.blobs.delete(video.blob_key);
    } catch (e) {
      if (isUpstreamFailure(e)) throw upstreamUnavailable('the blob store cannot delete the clip', e);
      throw e;
    }
    // Only once the bytes are gone: a refused removal leaves the clip's scoring running.
    await this.jobs.cancelBySubject(`video:${videoId}`);
    await this.repos.transaction(async (tx) => {
      if (!(await tx.videos.deleteOne(videoId))) return;
      if (kind === 'rank') await tx.sessions.unlockPromptIfNoCandidate(session.id);
    });
  }

  private fresh(userId: string, kind: SessionKind): SessionRecord {
    return {
      id: newRunId(kind),
      user_id: userId,
      kind,
      prompt: null,
      created_at: this.now(),
      retired_at: null,
      active: 1,
    };
  }

  async viewScore(session: SessionRecord): Promise<ScoreSessionView> {
    return {
      runId: session.id,
      kind: 'score',
      createdAt: iso(session.created_at),
      videos: await this.videosOf(session.id),
    };
  }

  async viewRank(session: SessionRecord): Promise<RankSessionView> {
    return {
      runId: session.id,
      kind: 'rank',
      prompt: session.prompt,
      promptLocked: session.prompt !== null,
      createdAt: iso(session.created_at),
      videos: await this.videosOf(session.id),
    };
  }

  private async videosOf(sessionId: string): Promise<VideoView[]> {
    return this.videos.viewsOfSession(sessionId);
  }
}

function newRunId(kind: SessionKind): string {
  return `${kind}_${randomUUID().replaceAll('-', '')}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
