/**
 * The runner loop's view of the protocol, over `vesta.runners` (one method per operation): a
 * claimed task always carries its lease, so a claim answer without one is a protocol error.
 */
import { VestaError } from '../core/errors.js';
import type { RunnersResource } from '../resources/runners.js';
import type { RunnerApi } from './types.js';

export function runnerApiOver(runners: RunnersResource): RunnerApi {
  return {
    register: (body, opts) => runners.register(body, opts),
    async claim(runnerId, body, opts) {
      const task = await runners.claim(runnerId, body, opts);
      if (task === null) return null;
      const { lease } = task;
      if (lease === null)
        throw new VestaError(
          'protocol_error',
          `The service answered a claim with task ${task.id} but no lease.`,
        );
      return {
        id: task.id,
        runId: task.runId,
        modelId: task.modelId,
        prompt: task.prompt,
        auxiliary: Object.keys(task.auxiliary).length > 0 ? task.auxiliary : null,
        dimensions: task.dimensions,
        sampleIndex: task.sampleIndex,
        seed: task.seed,
        attempt: task.attempt,
        maxAttempts: task.maxAttempts,
        lease,
      };
    },
    heartbeat: (taskId, body, opts) => runners.heartbeat(taskId, body, opts),
    createUploadUrl: (taskId, body, opts) => runners.createUploadUrl(taskId, body, opts),
    complete: (taskId, body, opts) => runners.complete(taskId, body, opts),
    fail: (taskId, body, opts) => runners.fail(taskId, body, opts),
    deregister: (runnerId, opts) => runners.deregister(runnerId, opts),
  };
}
