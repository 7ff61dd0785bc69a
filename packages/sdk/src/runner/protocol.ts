/** The runner protocol over HTTP: the endpoints `RunnerApi` names, called through the SDK's core. */
import type { HttpClient, RequestOptions } from '../core/http.js';
import type { RunnerApi, RunnerTask } from './types.js';

const enc = encodeURIComponent;

export function httpRunnerApi(http: HttpClient): RunnerApi {
  return {
    register: (body, opts) => http.json({ method: 'POST', path: '/api/v1/runners', body }, opts),
    async claim(runnerId, body, opts?: RequestOptions) {
      const reply = await http.json<{ task?: RunnerTask } | undefined>(
        { method: 'POST', path: `/api/v1/runners/${enc(runnerId)}/claim`, body },
        opts,
      );
      return reply?.task ?? null;
    },
    heartbeat: (taskId, body, opts) =>
      http.json({ method: 'POST', path: `/api/v1/runner-tasks/${enc(taskId)}/heartbeat`, body }, opts),
    createUploadUrl: (taskId, body, opts) =>
      http.json({ method: 'POST', path: `/api/v1/runner-tasks/${enc(taskId)}/upload-url`, body }, opts),
    complete: (taskId, body, opts) =>
      http.json({ method: 'POST', path: `/api/v1/runner-tasks/${enc(taskId)}/complete`, body }, opts),
    fail: (taskId, body, opts) =>
      http.json({ method: 'POST', path: `/api/v1/runner-tasks/${enc(taskId)}/fail`, body }, opts),
    async deregister(runnerId, opts) {
      await http.text({ method: 'DELETE', path: `/api/v1/runners/${enc(runnerId)}` }, opts);
    },
  };
}
