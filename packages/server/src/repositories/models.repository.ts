/**
 * The model catalogue: global models (no owner) and models private to the user whose runner
 * declared them (`services/model-keys.ts` has the visibility rule and the row keys).
 */
import type { Db } from '../db/connection.js';
import type { ModelsTable } from '../db/schema-bench.js';

/** A stored model. */
export type ModelRecord = ModelsTable;

export class ModelRepository {
  constructor(private readonly db: Db) {}

  /** The rows a public id may name for a user: the global model and the user's own private one. */
  async candidates(userId: string, publicId: string): Promise<Array<Pick<ModelRecord, 'id' | 'owner_id'>>> {
    return this.db
      .selectFrom('models')
      .select(['id', 'owner_id'])
      .where('public_id', '=', publicId)
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', userId)]))
      .execute();
  }

  /** The global models and the user's private ones, by public id. */
  async visibleTo(userId: string): Promise<ModelRecord[]> {
    return this.db
      .selectFrom('models')
      .selectAll()
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', userId)]))
      .orderBy('public_id')
      .execute();
  }

  /** Inserts the model unless its row key exists already. */
  async insertIfAbsent(row: ModelRecord): Promise<void> {
    await this.db
      .insertInto('models')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /** Whether a global model has this id. */
  async globalExists(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('models')
      .select('id')
      .where('id', '=', id)
      .where('owner_id', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Adds a global model, or renames and redescribes it. */
  async upsertGlobal(model: { id: string; name: string; description: string }, at: number): Promise<void> {
    await this.db
      .insertInto('models')
      .values({ ...model, public_id: model.id, owner_id: null, created_at: at })
      .onConflict((oc) => oc.column('id').doUpdateSet({ name: model.name, description: model.description }))
      .execute();
  }
}
