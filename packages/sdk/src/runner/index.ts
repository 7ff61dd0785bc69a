/** The runner loop and `runWithPipeline`, for both entry points. */
import type { VestaClient } from '../client.js';
import type { Runner, RunnerOptions } from './loop.js';

export {
  GenerationError,
  TaskStoppedError,
  DEFAULT_CLAIM_WAIT_SECONDS,
  DEFAULT_STOP_GRACE_MS,
} from './loop.js';
export type { Runner, RunnerOptions, StopOptions } from './loop.js';
export type { PipelineFn, PipelineInput, PipelineResult, RunWithPipelineOptions } from './pipeline.js';
export { sniffContentType } from './upload.js';
export type * from './types.js';

/**
 * Starts a runner that serves `options.models` with `options.generate` (same as
 * `client.createRunner(options)`).
 * @example
 * const runner = createRunner(vesta, { name: 'gpu-1', models: ['my-model'], concurrency: 2, generate });
 * await runner.done;
 */
export function createRunner(client: VestaClient, options: RunnerOptions): Runner {
  return client.createRunner(options);
}
