/**
 * Discovery reads: the dimension registry as the API shows it, and the models a Bench run can
 * evaluate with the runners that serve each one.
 */
import type { DimensionInfo } from '@vesta/engine';
import type { Db } from '../db/connection.js';
import type { DimensionView, ModelView } from '../domain/views/discovery.js';
import { isRunnerOnline } from './bench-runners.js';
import { publicModelId } from './model-keys.js';

export function dimensionView(d: DimensionInfo): DimensionView {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    category: d.category,
    higherIsBetter: d.higherIsBetter,
    range: { min: d.range.min, max: d.range.max },
    methods: d.methods.map((m) => ({
      id: m.id,
      version: m.version,
      description: m.description,
      requires: {
        models: [...m.requires.models],
        auxiliary: [...m.requires.auxiliary],
        prompt: m.requires.prompt,
      },
      available: m.available,
      unavailableReason: m.unavailableReason ?? null,
    })),
    defaultMethod: d.defaultMethod,
    normalisation: { ...d.normalisation },
    workflows: [...d.workflows],
  };
}

export interface ModelCatalogDeps {
  db: Db;
  now?: () => number;
}

export class ModelCatalog {
  private readonly db: Db;
  private readonly now: () => number;

  constructor(deps: ModelCatalogDeps) {
    this.db = deps.db;
    this.now = deps.now ?? Date.now;
  }

  /**
   * The models the caller may see (global ones and their own private ones, which shadow a global
   * model of the same id: `model-keys.ts`), by id, each with the caller's runners serving it
   * (online ones first, then by id): only a user's own runners generate that user's runs, so
   * other users' are not shown.
   */
  async list(userId: string): Promise<ModelView[]> {
    const visible = await this.db
      .selectFrom('models')
      .selectAll()
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', userId)]))
      .orderBy('public_id')
      .execute();
    const own = new Set(visible.filter((m) => m.owner_id !== null).map((m) => m.public_id));
    const models = visible.filter((m) => m.owner_id !== null || !own.has(m.public_id));
    const links = await this.db
      .selectFrom('runner_models')
      .innerJoin('runners', 'runners.id', 'runner_models.runner_id')
      .select(['runner_models.model_id', 'runners.id', 'runners.name', 'runners.last_seen_at'])
      .where('runners.user_id', '=', userId)
      .orderBy('runners.id')
      .execute();
    const now = this.now();
    return models.map((m) => {
      const runners = links
        .filter((l) => l.model_id === m.id)
        .map((l) => ({
          id: l.id,
          name: l.name,
          online: isRunnerOnline(l.last_seen_at, now),
          lastSeenAt: l.last_seen_at === null ? null : new Date(l.last_seen_at).toISOString(),
        }))
        .sort((a, b) => Number(b.online) - Number(a.online) || a.id.localeCompare(b.id));
      return {
        id: publicModelId(m.id),
        name: m.name,
        description: m.description,
        runners,
        online: runners.some((r) => r.online),
        createdAt: new Date(m.created_at).toISOString(),
      };
    });
  }

  /** Adds or updates a global model (operators: `vesta admin add-model`). */
  async upsert(model: { id: string; name: string; description: string }): Promise<void> {
    await this.db
      .insertInto('models')
      .values({ ...model, public_id: model.id, owner_id: null, created_at: this.now() })
      .onConflict((oc) => oc.column('id').doUpdateSet({ name: model.name, description: model.description }))
      .execute();
  }
}
