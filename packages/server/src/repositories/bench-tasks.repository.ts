/**
 * A Bench run's generation tasks (one clip each: prompt × sample) and the clips minted for them.
 * Part of the Bench run aggregate with `bench-runs.repository.ts`. Every move of a leased task is
 * a compare-and-set on its state and lease id (the fencing token).
 */
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { BenchTasksTable } from '../db/schema-bench.js';

/** A stored task. */
export type BenchTaskRecord = Selectable<BenchTasksTable>;

export class BenchTaskRepository {
  constructor(private readonly db: Db) {}

  /**
   * The leased task delivered its clip: `evaluating` with it, if the lease is still current.
   * False when the lease ended meanwhile.
   */
  async moveToEvaluating(taskId: string, leaseId: string, videoId: string, at: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('bench_tasks')
      .set({
        state: 'evaluating',
        video_id: videoId,
        lease_expires_at: null,
        error_code: null,
        error_detail: null,
        updated_at: at,
      })
      .where('id', '=', taskId)
      .where('lease_id', '=', leaseId)
      .where('state', '=', 'claimed')
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  }
}
