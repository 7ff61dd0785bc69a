/**
 * Score and Rank sessions: one current session per user and kind, created on first read. A reset
 * retires the current run id (it then answers 409 conflict), cancels its pending scoring jobs,
 * deletes its videos, their scores and their stored bytes, and starts an empty session with a
 * new run id.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { SessionKind, SessionsTable } from '../db/schema.js';
import { AppError, conflict, forbidden } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { RankSessionView, ScoreSessionView, VideoView } from '../domain/views/score-rank.js';
import type { Logger } from '../ports/logger.js';
import type { VideoService } from './video-service.js';

export class SessionService {
  private readonly currentOf;
  private readonly byId;

  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly jobs: JobQueue,
    private readonly videos: VideoService,
    private readonly now: () => number = Date.now,
  ) {
    // Both run on every Score/Rank request: compiled once.
    this.currentOf = preparedQuery(
      db,
      db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', '?')
        .where('kind', '=', 'score')
        .where('active', '=', 1),
      3,
    );
    this.byId = preparedQuery(db, db.selectFrom('sessions').selectAll().where('id', '=', '?'), 1);
  }

  /** The user's current session of `kind`, created when absent. */
  async getOrCreate(userId: string, kind: SessionKind): Promise<SessionsTable> {
    const [existing] = await this.currentOf(userId, kind, 1);
    if (existing) return existing;
    return this.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('kind', '=', kind)
        .where('active', '=', 1)
        .executeTakeFirst();
      if (current) return current;
      const row: SessionsTable = {
        id: newRunId(kind),
        user_id: userId,
        kind,
        prompt: null,
        created_at: this.now(),
        retired_at: null,
        active: 1,
      };
      await trx.insertInto('sessions').values(row).execute();
      return row;
    });
  }

  /**
   * The session `runId` of `kind` when it is the caller's current one: 404 when it does not exist
   * (or is another kind), 403 when it is someone else's, 409 when it was reset.
   */
  async requireCurrent(userId: string, kind: SessionKind, runId: string): Promise<SessionsTable> {
    const [row] = await this.byId(runId);
    if (!row || row.kind !== kind) throw new AppError('not_found', `${kind} run ${runId} not found`);
    if (row.user_id !== userId) throw forbidden(`${kind} run ${runId} belongs to another user`);
    if (row.active !== 1)
      throw conflict(`${kind} run ${runId} was reset; GET /api/v1/${kind} for the current run id`);
    return row;
  }

  /** Retires the current session (if any) and returns a new, empty one. */
  async reset(userId: string, kind: SessionKind, log: Logger): Promise<SessionsTable> {
    const { fresh, videos } = await this.db.transaction().execute(async (trx) => {
      const old = await trx
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('kind', '=', kind)
        .where('active', '=', 1)
        .executeTakeFirst();
      let oldVideos: Array<{ id: string; blob_key: string }> = [];
      if (old) {
        oldVideos = await trx
          .selectFrom('videos')
          .select(['id', 'blob_key'])
          .where('session_id', '=', old.id)
          .execute();
        await trx
          .updateTable('sessions')
          .set({ active: null, retired_at: this.now() })
          .where('id', '=', old.id)
          .execute();
        await trx.deleteFrom('videos').where('session_id', '=', old.id).execute();
      }
      const row: SessionsTable = {
        id: newRunId(kind),
        user_id: userId,
        kind,
        prompt: null,
        created_at: this.now(),
        retired_at: null,
        active: 1,
      };
      await trx.insertInto('sessions').values(row).execute();
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

  async viewScore(session: SessionsTable): Promise<ScoreSessionView> {
    return {
      runId: session.id,
      kind: 'score',
      createdAt: iso(session.created_at),
      videos: await this.videosOf(session.id),
    };
  }

  async viewRank(session: SessionsTable): Promise<RankSessionView> {
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
