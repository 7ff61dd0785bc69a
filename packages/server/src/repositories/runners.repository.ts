/**
 * Registered runners and the models each serves (`runner_models`, by model row key).
 */
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import { ownedRead } from './owned.js';
import type { Owned } from './owned.js';
import { dialectOf } from '../db/dialect.js';
import type { RunnersTable } from '../db/schema-bench.js';

/** A stored runner. */
export type RunnerRecord = Selectable<RunnersTable>;

export class RunnerRepository {
  constructor(private readonly db: Db) {}

  async byId(id: string): Promise<RunnerRecord | undefined> {
    return this.db.selectFrom('runners').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The runner `id` as user `owner` may see it (`Owned`). */
  async ownedBy(id: string, owner: string): Promise<Owned<RunnerRecord>> {
    return ownedRead(await this.byId(id), (r) => r.user_id, owner);
  }

  /** The user's runners, oldest first. */
  async ofUser(userId: string): Promise<RunnerRecord[]> {
    return this.db
      .selectFrom('runners')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Inserts a runner and its model links (row keys). */
  async insert(runner: RunnerRecord, modelKeys: readonly string[]): Promise<void> {
    await this.db.insertInto('runners').values(runner).execute();
    await this.db
      .insertInto('runner_models')
      .values(modelKeys.map((model_id) => ({ runner_id: runner.id, model_id })))
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('runners').where('id', '=', id).execute();
  }

  /** Records that the runner was seen; false when it no longer exists. */
  async touch(id: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable('runners')
      .set({ last_seen_at: at })
      .where('id', '=', id)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * Inside a claim's transaction: on PostgreSQL, where claims run side by side (several API
   * processes), locks the runner's row so that its claims count its held tasks one at a time.
   * SQLite serialises write transactions, so there the count and pick are safe as they are.
   */
  async lockForClaim(id: string): Promise<void> {
    if (dialectOf(this.db) !== 'postgres') return;
    await this.db.selectFrom('runners').select('id').where('id', '=', id).forUpdate().execute();
  }

  /** The model links of these runners, by model row key. */
  async modelLinks(runnerIds: readonly string[]): Promise<Array<{ runner_id: string; model_id: string }>> {
    return this.db
      .selectFrom('runner_models')
      .select(['runner_id', 'model_id'])
      .where('runner_id', 'in', runnerIds)
      .orderBy('model_id')
      .execute();
  }

  /**
   * The user's runner `runnerId` with whether it serves the model row `modelKey` (`model_id` null
   * when it does not); undefined when the user has no such runner.
   */
  async servingModel(
    userId: string,
    runnerId: string,
    modelKey: string,
  ): Promise<{ id: string; model_id: string | null } | undefined> {
    return this.db
      .selectFrom('runners')
      .leftJoin('runner_models', (j) =>
        j.onRef('runner_models.runner_id', '=', 'runners.id').on('runner_models.model_id', '=', modelKey),
      )
      .select(['runners.id', 'runner_models.model_id'])
      .where('runners.id', '=', runnerId)
      .where('runners.user_id', '=', userId)
      .executeTakeFirst();
  }

  /** The user's runners with the models they serve (one row per link), by runner id. */
  async servingLinksOf(
    userId: string,
  ): Promise<Array<{ model_id: string; id: string; name: string; last_seen_at: number | null }>> {
    return this.db
      .selectFrom('runner_models')
      .innerJoin('runners', 'runners.id', 'runner_models.runner_id')
      .select(['runner_models.model_id', 'runners.id', 'runners.name', 'runners.last_seen_at'])
      .where('runners.user_id', '=', userId)
      .orderBy('runners.id')
      .execute();
  }
}
