/** Discovery reads: the evaluation dimensions and the models the service knows. */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type { DimensionList, ModelList } from '../types.js';

export class DimensionsResource {
  constructor(private readonly http: HttpClient) {}
  /**
   * Every evaluation dimension.
   * @example
   * const { data } = await vesta.dimensions.list();
   */
  list(opts?: RequestOptions): Promise<DimensionList> {
    return this.http.json<DimensionList>({ method: 'GET', path: '/api/v1/dimensions' }, opts);
  }
}

export class ModelsResource {
  constructor(private readonly http: HttpClient) {}
  /**
   * Every model the service can use or benchmark.
   * @example
   * const { data } = await vesta.models.list();
   */
  list(opts?: RequestOptions): Promise<ModelList> {
    return this.http.json<ModelList>({ method: 'GET', path: '/api/v1/models' }, opts);
  }
}
