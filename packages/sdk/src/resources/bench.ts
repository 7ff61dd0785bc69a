/** Bench runs: evaluate a model on named dimensions, then read videos, CSV scorecard and logs. */
import type { HttpClient, RequestOptions } from '../core/http.js';
import { iterateItems, type Page, type PageParams } from '../core/pagination.js';
import type { BenchCreateParams, BenchLogs, BenchRun, BenchRunPage, BenchVideos } from '../types.js';

export class BenchResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * Creates a Bench run. Runners then generate the clips and the service scores them.
   * @example
   * const run = await vesta.bench.create({ name: 'nightly', modelId: 'my-model', dimensions: ['subject_consistency'], runnerId: 'gpu-1' });
   */
  create(params: BenchCreateParams, opts?: RequestOptions): Promise<BenchRun> {
    const body: Record<string, unknown> = { name: params.name, model_id: params.modelId, dimensions: params.dimensions };
    if (params.runnerId !== undefined) body.runner_id = params.runnerId;
    return this.http.json<BenchRun>({ method: 'POST', path: '/api/v1/bench', body }, opts);
  }

  /** One page of the caller's Bench runs, newest first. */
  async listPage(params: PageParams = {}, opts?: RequestOptions): Promise<Page<BenchRun>> {
    const raw = await this.http.json<BenchRunPage>({ method: 'GET', path: '/api/v1/bench', query: { page: params.page, limit: params.limit } }, opts);
    return toPage(raw);
  }

  /**
   * Every Bench run, fetched page by page as the loop consumes them.
   * @example
   * for await (const run of vesta.bench.list()) console.log(run.id, run.status);
   */
  list(params: PageParams = {}, opts: RequestOptions = {}): AsyncGenerator<BenchRun, void, undefined> {
    return iterateItems((p, o) => this.listPage(p, o), params, opts);
  }

  /** A Bench run, including its `status`. */
  get(id: string, opts?: RequestOptions): Promise<BenchRun> {
    return this.http.json<BenchRun>({ method: 'GET', path: `/api/v1/bench/${encodeURIComponent(id)}` }, opts);
  }

  /** Cancels a run that has not finished (409 `conflict` when it has). */
  cancel(id: string, opts?: RequestOptions): Promise<BenchRun> {
    return this.http.json<BenchRun>({ method: 'POST', path: `/api/v1/bench/${encodeURIComponent(id)}/cancel` }, opts);
  }

  /** Deletes a finished run (cancel an active one first). */
  async delete(id: string, opts?: RequestOptions): Promise<void> {
    await this.http.text({ method: 'DELETE', path: `/api/v1/bench/${encodeURIComponent(id)}` }, opts);
  }

  /** Individual video results of a run. */
  videos(id: string, opts?: RequestOptions): Promise<BenchVideos> {
    return this.http.json<BenchVideos>({ method: 'GET', path: `/api/v1/bench/${encodeURIComponent(id)}/videos` }, opts);
  }

  /** The scorecard as CSV text. */
  csv(id: string, opts?: RequestOptions): Promise<string> {
    return this.http.text({ method: 'GET', path: `/api/v1/bench/${encodeURIComponent(id)}/csv` }, opts);
  }

  /** The run's log lines. */
  logs(id: string, opts?: RequestOptions): Promise<BenchLogs> {
    return this.http.json<BenchLogs>({ method: 'GET', path: `/api/v1/bench/${encodeURIComponent(id)}/logs` }, opts);
  }
}

function toPage(raw: BenchRunPage): Page<BenchRun> {
  return { data: raw.data, page: raw.page, limit: raw.limit, total: raw.total, hasMore: raw.page * raw.limit < raw.total };
}
