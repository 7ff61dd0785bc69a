/**
 * The models a Bench run can evaluate, with the runners that serve each one (discovery), and the
 * operator's `vesta admin add-model`. The dimension registry's view is `dimension-view.ts`.
 */
import type { ModelView } from '../domain/views/discovery.js';
import type { Repositories } from '../repositories/index.js';
import { isRunnerOnline } from './runner.service.js';
import { publicModelId } from './model-keys.js';

export interface ModelServiceDeps {
  repos: Repositories;
  now?: () => number;
}

export class ModelService {
  private readonly repos: Repositories;
  private readonly now: () => number;

  constructor(deps: ModelServiceDeps) {
    this.repos = deps.repos;
    this.now = deps.now ?? Date.now;
  }

  /**
   * The models the caller may see (global ones and their own private ones, which shadow a global
   * model of the same id: `model-keys.ts`), by id, each with the caller's runners serving it
   * (online ones first, then by id): only a user's own runners generate that user's runs, so
   * other users' are not shown.
   */
  async list(userId: string): Promise<ModelView[]> {
    const visible = await this.repos.models.visibleTo(userId);
    const own = new Set(visible.filter((m) => m.owner_id !== null).map((m) => m.public_id));
    const models = visible.filter((m) => m.owner_id !== null || !own.has(m.public_id));
    const links = await this.repos.runners.servingLinksOf(userId);
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

  /** Adds or updates a global model (operators: `vesta admin add-model`); true when it was new. */
  async upsert(model: { id: string; name: string; description: string }): Promise<boolean> {
    const existed = await this.repos.models.globalExists(model.id);
    await this.repos.models.upsertGlobal(model, this.now());
    return !existed;
  }
}
