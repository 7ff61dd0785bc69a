/**
 * A model's baseline run, per user: the run a new run of the model is compared with (its run page
 * shows the deltas; `vesta bench compare` and CI gates can read it). Only a completed run of that
 * model, of the caller's, can be one; deleting the run removes the baseline with it.
 */
import { iso } from './bench-views.js';
import type { ModelBaselineView } from '../domain/views/bench-comparison.js';
import { conflict, forbidden, notFound, validationFailed } from '../errors.js';
import type { Repositories } from '../repositories/index.js';
import { publicModelId, resolveModelKey } from './model-keys.js';
import { ownRow } from './ownership.js';

export class ModelBaselineService {
  constructor(
    private readonly repos: Repositories,
    private readonly now: () => number = Date.now,
  ) {}

  private async modelKey(userId: string, modelId: string): Promise<string> {
    // Another user's private model answers exactly as an id nobody declared (`model-keys.ts`).
    const key = await resolveModelKey(this.repos.models, userId, modelId);
    if (key === undefined) throw notFound(`model '${modelId}'`);
    return key;
  }

  async get(userId: string, modelId: string): Promise<ModelBaselineView> {
    const key = await this.modelKey(userId, modelId);
    const row = await this.repos.benchRuns.baselineOf(userId, key);
    return {
      model_id: publicModelId(key),
      run_id: row?.run_id ?? null,
      set_at: row ? iso(row.set_at) : null,
    };
  }

  async set(userId: string, modelId: string, runId: string): Promise<ModelBaselineView> {
    const key = await this.modelKey(userId, modelId);
    const run = ownRow(await this.repos.benchRuns.ownedBy(runId, userId), {
      none: () => notFound(`bench run '${runId}'`),
      other: () => forbidden(`bench run '${runId}' belongs to another user`),
    });
    if (run.model_id !== key)
      throw validationFailed(
        `bench run '${runId}' evaluated model '${publicModelId(run.model_id)}', not '${modelId}'`,
      );
    if (run.status !== 'completed')
      throw conflict(`bench run '${runId}' is ${run.status}: only a completed run can be a baseline`);
    const at = this.now();
    await this.repos.benchRuns.setBaseline({ user_id: userId, model_id: key, run_id: runId, set_at: at });
    return { model_id: publicModelId(key), run_id: runId, set_at: iso(at) };
  }

  async clear(userId: string, modelId: string): Promise<void> {
    await this.repos.benchRuns.clearBaseline(userId, await this.modelKey(userId, modelId));
  }
}
