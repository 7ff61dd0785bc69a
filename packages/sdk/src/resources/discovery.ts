/** Discovery reads: the evaluation dimensions and the models the service knows. */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type { operations } from '../generated/openapi.generated.js';
import type { DimensionList, ModelBaseline, ModelList } from '../types.js';

/** A dimension's Bench prompts: suite version, clip group, prompts with auxiliary info. */
export type DimensionPrompts =
  operations['listDimensionPrompts']['responses'][200]['content']['application/json'];

export class DimensionsResource {
  constructor(private readonly http: HttpClient) {}
  /**
   * Every evaluation dimension.
   * @example
   * const { items } = await vesta.dimensions.list();
   */
  list(opts?: RequestOptions): Promise<DimensionList> {
    return this.http.json<DimensionList>({ method: 'GET', path: '/api/v1/dimensions' }, opts);
  }

  /**
   * The prompts Bench runs generate clips from for one dimension (Vesta's versioned suite).
   * @example
   * const { suiteVersion, clipGroup, prompts } = await vesta.dimensions.prompts('color');
   */
  prompts(id: string, opts?: RequestOptions): Promise<DimensionPrompts> {
    return this.http.json<DimensionPrompts>(
      { method: 'GET', path: `/api/v1/dimensions/${encodeURIComponent(id)}/prompts` },
      opts,
    );
  }
}

const baselinePath = (id: string): string => `/api/v1/models/${encodeURIComponent(id)}/baseline`;

export class ModelsResource {
  constructor(private readonly http: HttpClient) {}
  /**
   * Every model the service can use or benchmark.
   * @example
   * const { items } = await vesta.models.list();
   */
  list(opts?: RequestOptions): Promise<ModelList> {
    return this.http.json<ModelList>({ method: 'GET', path: '/api/v1/models' }, opts);
  }

  /**
   * The caller's baseline run of a model (`runId` null when none is set): what new runs of the
   * model are compared with.
   * @example
   * const { run_id } = await vesta.models.baseline('my-model');
   */
  baseline(id: string, opts?: RequestOptions): Promise<ModelBaseline> {
    return this.http.json<ModelBaseline>({ method: 'GET', path: baselinePath(id) }, opts);
  }

  /**
   * Makes a completed run of the model its baseline (replacing any earlier one).
   * @example
   * await vesta.models.setBaseline('my-model', 'bench_123');
   */
  setBaseline(id: string, runId: string, opts?: RequestOptions): Promise<ModelBaseline> {
    return this.http.json<ModelBaseline>(
      { method: 'PUT', path: baselinePath(id), body: { run_id: runId } },
      opts,
    );
  }

  /**
   * Clears the model's baseline.
   * @example
   * await vesta.models.clearBaseline('my-model');
   */
  async clearBaseline(id: string, opts?: RequestOptions): Promise<void> {
    await this.http.text({ method: 'DELETE', path: baselinePath(id) }, opts);
  }
}
