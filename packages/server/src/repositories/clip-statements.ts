/**
 * The statements of a clip's confirm, shared by the repositories that confirm one: a Score/Rank
 * confirm (`video-uploads.repository.ts`) and a Bench task's delivery
 * (`bench-lifecycle.repository.ts`). Each is one compare-and-set on the video's state, a move of
 * `domain/clip-lifecycle.ts` (`VIDEO_MOVES`).
 */
import type { Db } from '../db/connection.js';
import { VIDEO_MOVES } from '../domain/clip-lifecycle.js';

/** What the confirm step writes when the clip passed its checks. */
export interface ConfirmedVideo {
  probe: string;
  blob_version: string | null;
  dimensions: string;
  confirmed_at: number;
}

/** What a video becomes once its object arrived in the store. */
export interface ArrivedVideo {
  state: (typeof VIDEO_MOVES.arrive.to)[number];
  size_bytes: number;
  uploaded_at: number;
}

/** Its object arrived in the store (no PUT through the service): `uploaded`, if nothing claimed it. */
export async function markVideoArrived(db: Db, id: string, changes: ArrivedVideo): Promise<void> {
  await db
    .updateTable('videos')
    .set(changes)
    .where('id', '=', id)
    .where('state', 'in', VIDEO_MOVES.arrive.from)
    .where('upload_started_at', 'is', null)
    .execute();
}

/** Confirmed: `queued` with its probe, version and dimensions, if still `uploaded`. False when another confirm won. */
export async function confirmVideo(db: Db, id: string, confirmed: ConfirmedVideo): Promise<boolean> {
  const moved = await db
    .updateTable('videos')
    .set({ state: VIDEO_MOVES.confirm.to[0], ...confirmed })
    .where('id', '=', id)
    .where('state', 'in', VIDEO_MOVES.confirm.from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}
