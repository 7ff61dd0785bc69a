/**
 * Videos and their results (scores, per-dimension failures): the read model of sessions and Bench
 * runs, and scoring's writes. The upload lifecycle of the same rows (claims, expiry, confirm) is
 * `video-uploads.repository.ts`. Part of the Score/Rank aggregate with `sessions.repository.ts`.
 */
import type { Db } from '../db/connection.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { ScoreFailuresTable, ScoresTable, VideosTable } from '../db/schema.js';
import { VIDEO_MOVES } from '../domain/clip-lifecycle.js';

/** A stored video. */
export type VideoRecord = VideosTable;
/** One stored per-dimension score of a video. */
export type ScoreRecord = ScoresTable;
/** A dimension a video could not be scored on. */
export type ScoreFailureRecord = ScoreFailuresTable;

/** How a video's scoring ended: what `finishScoring` writes. */
export interface ScoringOutcome {
  state: (typeof VIDEO_MOVES.settle.to)[number];
  error_code: string | null;
  error_detail: string | null;
  scored_at: number;
}

export class VideoRepository {
  /** Runs on every session read: compiled once (on first use, per executor). */
  private ofSessionQuery?: (...params: unknown[]) => Promise<VideoRecord[]>;

  constructor(private readonly db: Db) {}

  /** The videos of a session, oldest first. */
  async ofSession(sessionId: string): Promise<VideoRecord[]> {
    this.ofSessionQuery ??= preparedQuery(
      this.db,
      this.db
        .selectFrom('videos')
        .selectAll()
        .where('session_id', '=', '?')
        .orderBy('created_at')
        .orderBy('id'),
      1,
    );
    return this.ofSessionQuery(sessionId);
  }

  async byId(id: string): Promise<VideoRecord | undefined> {
    return this.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async exists(id: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('videos').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    );
  }

  /** What serving a clip's bytes needs to know; nothing unless the clip is `owner`'s. */
  async storedClipOf(
    id: string,
    owner: string,
  ): Promise<Pick<VideoRecord, 'blob_key' | 'content_type' | 'confirmed_at' | 'state'> | undefined> {
    return this.db
      .selectFrom('videos')
      .select(['blob_key', 'content_type', 'confirmed_at', 'state'])
      .where('id', '=', id)
      .where('user_id', '=', owner)
      .executeTakeFirst();
  }

  /** The ids and blob keys of a session's videos (what deleting them leaves to clean up). */
  async blobsOfSession(sessionId: string): Promise<Array<{ id: string; blob_key: string }>> {
    return this.db
      .selectFrom('videos')
      .select(['id', 'blob_key'])
      .where('session_id', '=', sessionId)
      .execute();
  }

  /** Deletes a session's videos (their scores and failures go with them). */
  async deleteOfSession(sessionId: string): Promise<void> {
    await this.db.deleteFrom('videos').where('session_id', '=', sessionId).execute();
  }

  /** Deletes one video (its scores and failures go with it); false when it was gone already. */
  async deleteOne(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('videos').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  // ---- results -------------------------------------------------------------------------------

  /** The scores of these videos, by dimension. */
  async scoresOf(videoIds: readonly string[]): Promise<ScoreRecord[]> {
    return this.db
      .selectFrom('scores')
      .selectAll()
      .where('video_id', 'in', videoIds)
      .orderBy('dimension')
      .execute();
  }

  async failuresOf(videoIds: readonly string[]): Promise<ScoreFailureRecord[]> {
    return this.db
      .selectFrom('score_failures')
      .selectAll()
      .where('video_id', 'in', videoIds)
      .orderBy('dimension')
      .execute();
  }

  /** The scores of these videos without their frames and models (a Bench run's clip list), by video and dimension. */
  async scoreSummariesOf(
    videoIds: readonly string[],
  ): Promise<Array<Pick<ScoreRecord, 'video_id' | 'dimension' | 'value' | 'method' | 'method_version'>>> {
    return this.db
      .selectFrom('scores')
      .select(['video_id', 'dimension', 'value', 'method', 'method_version'])
      .where('video_id', 'in', videoIds)
      .orderBy('video_id')
      .orderBy('dimension')
      .execute();
  }

  async failureSummariesOf(videoIds: readonly string[]): Promise<ScoreFailureRecord[]> {
    return this.db
      .selectFrom('score_failures')
      .select(['video_id', 'dimension', 'code', 'detail'])
      .where('video_id', 'in', videoIds)
      .orderBy('video_id')
      .orderBy('dimension')
      .execute();
  }

  // ---- scoring -------------------------------------------------------------------------------

  /** The evaluation starts: `scoring`, if it is `queued` (or `scoring`, its process having died). */
  async startScoring(id: string): Promise<boolean> {
    const moved = await this.db
      .updateTable('videos')
      .set({ state: VIDEO_MOVES.startScoring.to[0] })
      .where('id', '=', id)
      .where('state', 'in', VIDEO_MOVES.startScoring.from)
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  }

  /** Back to `queued` if it is still `scoring` (an evaluation cut off by an abort). */
  async requeueIfScoring(id: string): Promise<void> {
    await this.db
      .updateTable('videos')
      .set({ state: VIDEO_MOVES.requeue.to[0] })
      .where('id', '=', id)
      .where('state', 'in', VIDEO_MOVES.requeue.from)
      .execute();
  }

  /** The evaluation failed for good: `failed`, if it had not settled. */
  async markFailed(id: string, code: string, detail: string, at: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('videos')
      .set({ state: VIDEO_MOVES.giveUp.to[0], error_code: code, error_detail: detail, scored_at: at })
      .where('id', '=', id)
      .where('state', 'in', VIDEO_MOVES.giveUp.from)
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  }

  /** Removes a video's scores and failures (before new ones are stored). */
  async deleteResults(id: string): Promise<void> {
    await this.db.deleteFrom('scores').where('video_id', '=', id).execute();
    await this.db.deleteFrom('score_failures').where('video_id', '=', id).execute();
  }

  async insertScores(rows: readonly ScoreRecord[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insertInto('scores').values(rows).execute();
  }

  async insertFailures(rows: readonly ScoreFailureRecord[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insertInto('score_failures').values(rows).execute();
  }

  /** The evaluation settled: `scored` or `failed`, if it is still `scoring`; false otherwise. */
  async finishScoring(id: string, outcome: ScoringOutcome): Promise<boolean> {
    const moved = await this.db
      .updateTable('videos')
      .set(outcome)
      .where('id', '=', id)
      .where('state', 'in', VIDEO_MOVES.settle.from)
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  }
}
