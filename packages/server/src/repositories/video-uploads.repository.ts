/**
 * The upload lifecycle of a video row: minted (`awaiting_upload`), claimed by the PUT streaming its
 * bytes (`upload_started_at`, and `upload_owner` naming the process on PostgreSQL), uploaded, then
 * confirmed (`queued`) or refused (`failed`); expired URLs swept. Every move is one statement with
 * a compare-and-set on the state (and the claim), so racing PUTs, confirms and sweeps cannot both
 * win; each state change is a move of `domain/clip-lifecycle.ts` (`VIDEO_MOVES`). The same rows' read model and results are `videos.repository.ts`.
 */
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/schema.js';
import { VIDEO_MOVES } from '../domain/clip-lifecycle.js';
import { confirmVideo, markVideoArrived } from './clip-statements.js';
import type { ArrivedVideo, ConfirmedVideo } from './clip-statements.js';
import type { VideoRecord } from './videos.repository.js';

/** The claim of a PUT on a video (who streams it, since when). */
export type UploadClaim = Pick<VideoRecord, 'state' | 'upload_started_at' | 'upload_owner'>;

export type { ArrivedVideo, ConfirmedVideo };

/** The claim condition: this process's claim (`owner`), or no owner where processes have no ids. */
function ownedBy(owner: string | null) {
  return (eb: ExpressionBuilder<Database, 'videos'>) =>
    owner === null ? eb('upload_owner', 'is', null) : eb('upload_owner', '=', owner);
}

export class VideoUploadRepository {
  constructor(private readonly db: Db) {}

  async insert(row: VideoRecord): Promise<void> {
    await this.db.insertInto('videos').values(row).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('videos').where('id', '=', id).execute();
  }

  /** The video `id` of session `sessionId`. */
  async inSession(id: string, sessionId: string): Promise<VideoRecord | undefined> {
    return this.db
      .selectFrom('videos')
      .selectAll()
      .where('id', '=', id)
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
  }

  // ---- the PUT's claim -----------------------------------------------------------------------

  /** Claims an unclaimed `awaiting_upload` video for `owner`; its blob key, or undefined. */
  async claim(id: string, owner: string | null, at: number): Promise<{ blob_key: string } | undefined> {
    return this.db
      .updateTable('videos')
      .set({ upload_started_at: at, upload_owner: owner })
      .where('id', '=', id)
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .returning(['blob_key'])
      .executeTakeFirst();
  }

  async claimOf(id: string): Promise<UploadClaim | undefined> {
    return this.db
      .selectFrom('videos')
      .select(['state', 'upload_started_at', 'upload_owner'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Takes `previous`'s claim over for `owner` (only while it is still `previous`'s). */
  async takeOver(
    id: string,
    previous: string,
    owner: string | null,
    at: number,
  ): Promise<{ blob_key: string } | undefined> {
    return this.db
      .updateTable('videos')
      .set({ upload_started_at: at, upload_owner: owner })
      .where('id', '=', id)
      .where('state', '=', 'awaiting_upload')
      .where('upload_owner', '=', previous)
      .returning(['blob_key'])
      .executeTakeFirst();
  }

  /** The claim's owner while the video awaits its upload (undefined: no longer awaiting it). */
  async ownerWhileAwaiting(id: string): Promise<{ upload_owner: string | null } | undefined> {
    return this.db
      .selectFrom('videos')
      .select('upload_owner')
      .where('id', '=', id)
      .where('state', '=', 'awaiting_upload')
      .executeTakeFirst();
  }

  /** The PUT finished: `uploaded`, if the claim is still `owner`'s. False otherwise. */
  async finishPut(id: string, owner: string | null, sizeBytes: number, at: number): Promise<boolean> {
    const done = await this.db
      .updateTable('videos')
      .set({
        state: VIDEO_MOVES.arrive.to[0],
        size_bytes: sizeBytes,
        uploaded_at: at,
        upload_started_at: null,
        upload_owner: null,
      })
      .where('id', '=', id)
      .where('state', 'in', VIDEO_MOVES.arrive.from)
      .where(ownedBy(owner))
      .executeTakeFirst();
    return Number(done.numUpdatedRows) > 0;
  }

  /** A failed PUT gives its claim back (not one a retried PUT took over meanwhile). */
  async release(id: string, owner: string | null): Promise<void> {
    await this.db
      .updateTable('videos')
      .set({ upload_started_at: null, upload_owner: null })
      .where('id', '=', id)
      .where('state', '=', 'awaiting_upload')
      .where(ownedBy(owner))
      .execute();
  }

  /** Releases the claims that name no process; returns how many. */
  async releaseUnowned(): Promise<number> {
    const res = await this.db
      .updateTable('videos')
      .set({ upload_started_at: null })
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is not', null)
      .where('upload_owner', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Releases every claim; returns how many. */
  async releaseAll(): Promise<number> {
    const res = await this.db
      .updateTable('videos')
      .set({ upload_started_at: null, upload_owner: null })
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is not', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** The processes that hold claims. */
  async claimOwners(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('videos')
      .select('upload_owner')
      .distinct()
      .where('state', '=', 'awaiting_upload')
      .where('upload_owner', 'is not', null)
      .execute();
    return rows.flatMap((r) => (r.upload_owner === null ? [] : [r.upload_owner]));
  }

  /** Releases the claims of these processes; returns how many. */
  async releaseClaimsOf(owners: readonly string[]): Promise<number> {
    const res = await this.db
      .updateTable('videos')
      .set({ upload_started_at: null, upload_owner: null })
      .where('state', '=', 'awaiting_upload')
      .where('upload_owner', 'in', owners)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  // ---- expiry ----------------------------------------------------------------------------------

  /** The unclaimed videos whose upload URL expired by `at`. */
  async expired(at: number): Promise<Array<{ id: string; blob_key: string }>> {
    return this.db
      .selectFrom('videos')
      .select(['id', 'blob_key'])
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .where('upload_expires_at', '<=', at)
      .execute();
  }

  /** Deletes the video if it still awaits an upload nobody claimed; true when it did. */
  async deleteIfUnclaimed(id: string): Promise<boolean> {
    const gone = await this.db
      .deleteFrom('videos')
      .where('id', '=', id)
      .where('state', '=', 'awaiting_upload')
      .where('upload_started_at', 'is', null)
      .executeTakeFirst();
    return Number(gone.numDeletedRows) > 0;
  }

  // ---- confirm ---------------------------------------------------------------------------------

  /** Its object arrived in the store (no PUT through the service): `uploaded`, if nothing claimed it. */
  async markArrived(id: string, changes: ArrivedVideo): Promise<void> {
    await markVideoArrived(this.db, id, changes);
  }

  /** Verification refused the upload: `failed` (no confirm time), if it is still `uploaded`. */
  async refuse(id: string, code: string, detail: string): Promise<void> {
    await this.db
      .updateTable('videos')
      .set({ state: VIDEO_MOVES.refuse.to[0], error_code: code, error_detail: detail })
      .where('id', '=', id)
      .where('state', 'in', VIDEO_MOVES.refuse.from)
      .execute();
  }

  /** Confirmed: `queued` with its probe, version and dimensions, if still `uploaded`. False when another confirm won. */
  async confirm(id: string, confirmed: ConfirmedVideo): Promise<boolean> {
    return confirmVideo(this.db, id, confirmed);
  }
}
