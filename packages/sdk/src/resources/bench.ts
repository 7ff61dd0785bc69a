/** Bench runs: evaluate a model on named dimensions, then read videos, CSV scorecard and logs. */
import type { HttpClient, RequestOptions } from '../core/http.js';
import { iterateItems, type Page, type PageParams } from '../core/pagination.js';
import type { Runner, RunnerOptions } from '../runner/loop.js';
import {
  runWithPipeline,
  type PipelineFn,
  type PipelineResult,
  type RunWithPipelineOptions,
} from '../runner/pipeline.js';
import type {
  BenchCreateBody,
  BenchCreateParams,
  BenchLogLine,
  BenchRun,
  BenchCompareOptions,
  BenchComparison,
  BenchScorecard,
  BenchVideo,
} from '../types.js';

const runPath = (id: string): string => `/api/v1/bench/${encodeURIComponent(id)}`;

/** What `runWithPipeline` needs from the client besides HTTP: a way to start a runner loop. */
export interface BenchRunnerHost {
  startRunner(options: RunnerOptions): Runner;
}

export class BenchResource {
  constructor(
    private readonly http: HttpClient,
    private readonly runners: BenchRunnerHost,
  ) {}

  /**
   * Creates a Bench run; runners then generate the clips and the service scores them.
   * `runnerId` is optional: without it any runner serving the model may take the run.
   * @example
   * const run = await vesta.bench.create({ name: 'nightly', modelId: 'my-model', dimensions: ['subject_consistency'], runnerId: 'gpu-1' });
   */
  create(params: BenchCreateParams, opts?: RequestOptions): Promise<BenchRun> {
    const body: BenchCreateBody = {
      name: params.name,
      model_id: params.modelId,
      dimensions: params.dimensions,
    };
    if (params.runnerId !== undefined) body.runner_id = params.runnerId;
    if (params.samplesPerPrompt !== undefined) body.samples_per_prompt = params.samplesPerPrompt;
    if (params.promptsPerDimension !== undefined) body.prompts_per_dimension = params.promptsPerDimension;
    return this.http.json<BenchRun>({ method: 'POST', path: '/api/v1/bench', body }, opts);
  }

  /**
   * Benchmarks an in-process generator: registers a fresh runner for `modelId`, creates a run that
   * only it serves, calls `fn` for every clip (prompt, seed, sample index, auxiliary info, abort
   * signal) and uploads what it returns (a file path, bytes, a Blob or a stream), then waits for
   * the evaluation and resolves with the finished run (`completed`, `failed` or `cancelled`).
   * @example
   * const run = await vesta.bench.runWithPipeline(
   *   async ({ prompt, seed }) => myModel.render(prompt, { seed }), // returns 'out.mp4' or bytes
   *   { dimensions: ['subject_consistency', 'dynamic_degree'], runName: 'nightly', modelId: 'my-model' },
   * );
   * console.log(run.status, await vesta.bench.csv(run.id));
   */
  runWithPipeline(fn: PipelineFn, options: RunWithPipelineOptions): Promise<PipelineResult> {
    return runWithPipeline(
      {
        startRunner: (o) => this.runners.startRunner(o),
        createRun: (params, signal) => this.create({ ...params, name: params.name }, { signal }),
        getRun: (id, signal) => this.get(id, { signal }),
        cancelRun: (id) => this.cancel(id),
      },
      fn,
      options,
    );
  }

  /**
   * One page of the caller's Bench runs, newest first (`limit` defaults to 20, at most 100).
   * @example
   * const { items, hasMore } = await vesta.bench.listPage({ page: 1, limit: 50 });
   */
  listPage(params: PageParams = {}, opts?: RequestOptions): Promise<Page<BenchRun>> {
    return this.http.json<Page<BenchRun>>(
      { method: 'GET', path: '/api/v1/bench', query: { page: params.page, limit: params.limit } },
      opts,
    );
  }

  /**
   * Every Bench run, newest first, fetched page by page as the loop consumes them.
   * @example
   * for await (const run of vesta.bench.list()) console.log(run.id, run.status);
   */
  list(params: PageParams = {}, opts: RequestOptions = {}): AsyncGenerator<BenchRun, void, undefined> {
    return iterateItems((p, o) => this.listPage(p, o), params, opts);
  }

  /**
   * A Bench run, including its `status` and progress.
   * @example
   * const run = await vesta.bench.get('bench_123');
   */
  get(id: string, opts?: RequestOptions): Promise<BenchRun> {
    return this.http.json<BenchRun>({ method: 'GET', path: runPath(id) }, opts);
  }

  /**
   * Cancels a run that is still queued, generating or evaluating (409 `conflict` otherwise).
   * @example
   * await vesta.bench.cancel('bench_123');
   */
  cancel(id: string, opts?: RequestOptions): Promise<BenchRun> {
    return this.http.json<BenchRun>({ method: 'POST', path: `${runPath(id)}/cancel` }, opts);
  }

  /**
   * Deletes a finished run with its clips, scores and logs (cancel an active one first).
   * @example
   * await vesta.bench.delete('bench_123');
   */
  async delete(id: string, opts?: RequestOptions): Promise<void> {
    await this.http.text({ method: 'DELETE', path: runPath(id) }, opts);
  }

  /**
   * One page of a run's clips with their per-dimension results, in task order.
   * @example
   * const { items } = await vesta.bench.videos('bench_123', { limit: 100 });
   */
  videos(id: string, params: PageParams = {}, opts?: RequestOptions): Promise<Page<BenchVideo>> {
    return this.http.json<Page<BenchVideo>>(
      { method: 'GET', path: `${runPath(id)}/videos`, query: { page: params.page, limit: params.limit } },
      opts,
    );
  }

  /** Every clip of a run, page by page. */
  allVideos(
    id: string,
    params: PageParams = {},
    opts: RequestOptions = {},
  ): AsyncGenerator<BenchVideo, void, undefined> {
    return iterateItems((p, o) => this.videos(id, p, o), params, opts);
  }

  /**
   * The scorecard with 95 % confidence intervals (a bootstrap over prompts, seeded from the run id):
   * per dimension the mean of its clips, then Quality, Semantic and Total. Final (`final: true`, the
   * same as `run.scorecard`) once the run has ended; before, from the clips scored so far.
   * @example
   * const { dimensions } = await vesta.bench.scorecard('bench_123');
   * for (const d of dimensions) console.log(d.dimension, d.score, [d.ci95_low, d.ci95_high]);
   */
  scorecard(id: string, opts?: RequestOptions): Promise<BenchScorecard> {
    return this.http.json<BenchScorecard>({ method: 'GET', path: `${runPath(id)}/scorecard` }, opts);
  }

  /**
   * Compares runs with the first (the baseline): per dimension, and Quality/Semantic/Total over the
   * dimensions all runs share with one method version, the difference with its 95 % interval and a
   * permutation p-value (paired when the runs share a prompt suite version); per-prompt deltas,
   * largest drop first; with `failOnRegression`, the regression gate (`gate.verdict`).
   * @example
   * const cmp = await vesta.bench.compare(['bench_base', 'bench_new'], { failOnRegression: 0.01 });
   * if (cmp.gate?.verdict === 'regression') throw new Error(cmp.gate.statement);
   */
  compare(
    runs: string[],
    options: BenchCompareOptions = {},
    opts?: RequestOptions,
  ): Promise<BenchComparison> {
    return this.http.json<BenchComparison>(
      {
        method: 'GET',
        path: '/api/v1/bench/compare',
        query: {
          runs: runs.join(','),
          dimensions: options.dimensions?.join(','),
          fail_on_regression: options.failOnRegression,
          prompt_limit: options.promptLimit,
        },
      },
      opts,
    );
  }

  /**
   * The scorecard as CSV text (one row per dimension, then Quality, Semantic and Total).
   * @example
   * await fs.writeFile('scorecard.csv', await vesta.bench.csv('bench_123'));
   */
  csv(id: string, opts?: RequestOptions): Promise<string> {
    return this.http.text({ method: 'GET', path: `${runPath(id)}/csv` }, opts);
  }

  /**
   * One page of a run's log lines, oldest first (`limit` defaults to 100, at most 1000).
   * @example
   * const { items } = await vesta.bench.logs('bench_123');
   */
  logs(id: string, params: PageParams = {}, opts?: RequestOptions): Promise<Page<BenchLogLine>> {
    return this.http.json<Page<BenchLogLine>>(
      { method: 'GET', path: `${runPath(id)}/logs`, query: { page: params.page, limit: params.limit } },
      opts,
    );
  }

  /** Every log line of a run, page by page. */
  allLogs(
    id: string,
    params: PageParams = {},
    opts: RequestOptions = {},
  ): AsyncGenerator<BenchLogLine, void, undefined> {
    return iterateItems((p, o) => this.logs(id, p, o), params, opts);
  }
}
