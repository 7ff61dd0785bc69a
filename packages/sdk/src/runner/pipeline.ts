/**
 * `bench.runWithPipeline`: benchmark an in-process generator. A fresh runner is registered for the
 * model, a run is created for that runner only, the runner loop serves the run's tasks by calling
 * the callable, and the run is polled until evaluation ends.
 */
import { sleep } from '../core/abort.js';
import { backoffDelay } from '../core/backoff.js';
import { RequestAbortedError, isTransient } from '../core/errors.js';
import type { BenchRun, BenchStatus } from '../types.js';
import { CLAIM_BACKOFF, GenerationError, type Runner, type RunnerOptions } from './loop.js';
import { errorText } from './retry.js';
import type { ClipOutput, GenerateContext, RunnerEvent, RunnerSummary } from './types.js';

/**
 * What the pipeline callable receives for one clip: the runner's generate context (prompt, seed,
 * sample index, auxiliary info, dimensions, the task, an abort signal and a log function).
 */
export type PipelineInput = GenerateContext;

export type PipelineFn = (input: PipelineInput) => Promise<ClipOutput> | ClipOutput;

export interface RunWithPipelineOptions {
  /** Dimension ids to evaluate. */
  dimensions: string[];
  /** A label for the run. */
  runName: string;
  /** The model being benchmarked (must exist in `models.list()`; runners declare theirs). */
  modelId: string;
  /** Clips per prompt (server default when left out). */
  samplesPerPrompt?: number;
  /** Prompts per dimension (server default: the whole suite). */
  promptsPerDimension?: number;
  /** Clips generated at once (default 1). */
  concurrency?: number;
  /** Aborting cancels the run and stops the runner; the promise rejects with `RequestAbortedError`. */
  signal?: AbortSignal;
  /** Called with the run whenever its status or progress changes. */
  onProgress?: (run: BenchRun) => void;
  /** Runner events (claims, uploads, log lines). */
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Run polling period in ms (default 500; at most 150 once the run is evaluating). */
  pollIntervalMs?: number;
  /** The runner's name (default `pipeline: <runName>`). */
  runnerName?: string;
}

export interface PipelineDeps {
  startRunner(options: RunnerOptions): Runner;
  createRun(
    params: {
      name: string;
      modelId: string;
      dimensions: string[];
      runnerId: string;
      samplesPerPrompt?: number;
      promptsPerDimension?: number;
    },
    signal: AbortSignal | undefined,
  ): Promise<BenchRun>;
  getRun(id: string, signal: AbortSignal | undefined): Promise<BenchRun>;
  cancelRun(id: string): Promise<unknown>;
}

const TERMINAL: readonly BenchStatus[] = ['completed', 'failed', 'cancelled'];
const GENERATION_OVER: readonly BenchStatus[] = ['evaluating', ...TERMINAL];

/** The finished run and what the in-process runner did. */
export type PipelineResult = BenchRun & { runner: RunnerSummary };

/**
 * What a pipeline's first call may throw that is a mistake in its code, not a failed clip:
 * TypeError (`x is not a function`, `cannot read properties of undefined`), ReferenceError, and a
 * module that cannot be found. fetch's network failures are TypeErrors too, but carry a `cause`.
 */
export function isProgrammingError(err: unknown): err is Error {
  if (err instanceof TypeError) return err.cause === undefined;
  if (err instanceof ReferenceError) return true;
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

export async function runWithPipeline(
  deps: PipelineDeps,
  fn: PipelineFn,
  options: RunWithPipelineOptions,
): Promise<PipelineResult> {
  const { signal } = options;
  if (signal?.aborted) throw new RequestAbortedError(signal.reason);
  // A programming error on the pipeline's first call fails every clip the same way: the task is
  // handed back (failed, retryable), the runner stops claiming, the run is cancelled and the
  // error itself is thrown here, with its own stack.
  let calls = 0;
  let fatal: Error | undefined;
  const generate: PipelineFn = async (input) => {
    const first = calls++ === 0;
    try {
      return await fn(input);
    } catch (err) {
      if (!first || !isProgrammingError(err)) throw err;
      fatal = err;
      void runner.stop({ graceMs: 0 }).catch(() => undefined);
      throw new GenerationError(
        `${err.name}: ${err.message} (the pipeline's first call); handed back, the run is cancelled and the error thrown in the runner's process`,
        { retryable: true, cause: err },
      );
    }
  };
  const runner = deps.startRunner({
    name: options.runnerName ?? `pipeline: ${options.runName}`,
    models: [options.modelId],
    concurrency: options.concurrency ?? 1,
    claimWaitSeconds: 1,
    deregisterOnStop: true,
    onLog: options.onRunnerEvent,
    generate,
  });
  let run: BenchRun | undefined;
  let runnerFailure: Error | undefined;
  const runnerEnded = runner.done.then(
    () => undefined,
    (err: unknown) => {
      runnerFailure = err instanceof Error ? err : new Error(String(err));
    },
  );
  try {
    const registered = await Promise.race([
      runner.ready,
      runnerEnded.then(() => Promise.reject(runnerFailure ?? new RequestAbortedError())),
    ]);
    run = await deps.createRun(
      {
        name: options.runName,
        modelId: options.modelId,
        dimensions: options.dimensions,
        runnerId: registered.id,
        ...(options.samplesPerPrompt !== undefined ? { samplesPerPrompt: options.samplesPerPrompt } : {}),
        ...(options.promptsPerDimension !== undefined
          ? { promptsPerDimension: options.promptsPerDimension }
          : {}),
      },
      signal,
    );
    options.onProgress?.(run);
    const interval = options.pollIntervalMs ?? 500;
    // Once every clip exists only evaluations remain: poll closer so the end is seen sooner.
    const evaluatingInterval = Math.min(interval, 150);
    let lastKey = progressKey(run);
    let failures = 0;
    while (!TERMINAL.includes(run.status)) {
      if (runnerFailure !== undefined) throw runnerFailure;
      await sleep(run.status === 'evaluating' ? evaluatingInterval : interval, signal);
      if (fatal !== undefined) throw fatal;
      try {
        run = await deps.getRun(run.id, signal);
        failures = 0;
      } catch (err) {
        // The service out of reach past the client's retries (an api process restarting): poll
        // again after a wait, as the runner loop claims again.
        if (!isTransient(err) || signal?.aborted) throw err;
        const delayMs = backoffDelay(Math.min(failures, 6), CLAIM_BACKOFF);
        failures++;
        emit(options, { type: 'retrying', operation: 'poll', error: errorText(err), delayMs });
        await sleep(delayMs, signal);
        continue;
      }
      const key = progressKey(run);
      if (key !== lastKey) {
        lastKey = key;
        options.onProgress?.(run);
      }
      if (GENERATION_OVER.includes(run.status) && runner.inFlight === 0) void runner.stop({ graceMs: 0 });
    }
    // Nothing is in flight once the run is over; the runner's last claim (at most a second) and
    // its deregistration finish in the background rather than delay the result.
    const stopped = runner.stop({ graceMs: 0 });
    stopped.catch(() => undefined);
    // A task still in flight (a cancelled run) is stopped and counted before the result.
    if (runner.inFlight > 0) await waitUntilIdle(runner);
    return { ...run, runner: runner.summary };
  } catch (err) {
    // Leave nothing behind: the run is cancelled (best effort) and the runner stopped.
    if (run && !TERMINAL.includes(run.status)) await deps.cancelRun(run.id).catch(() => undefined);
    await runner.stop({ graceMs: 0 }).catch(() => undefined);
    if (signal?.aborted) throw new RequestAbortedError(signal.reason);
    throw err;
  }
}

/** A runner event of the pipeline itself; the listener's exceptions are ignored, as the runner's. */
function emit(options: RunWithPipelineOptions, event: RunnerEvent): void {
  try {
    options.onRunnerEvent?.(event);
  } catch {
    // A listener's error must not break the run.
  }
}

function progressKey(run: BenchRun): string {
  const p = run.progress;
  return `${run.status}:${p.tasks_total}:${p.tasks_generated}:${p.tasks_done}:${p.tasks_failed}`;
}

/** Resolves once the runner has no task in flight (its stop hands them back at once). */
async function waitUntilIdle(runner: Runner): Promise<void> {
  while (runner.inFlight > 0) await sleep(20);
}
