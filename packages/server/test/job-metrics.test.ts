/**
 * /metrics shows the job queue (both adapters: the vitest project picks the database): depth by
 * type and state, this process's runs by outcome with their duration, and failures by type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoreServer, waitFor } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';
import { jobsAbout } from './helpers/job-queue-harness.js';

let server: CoreTestServer;

beforeAll(async () => {
  server = await startCoreServer({ worker: true });
});

afterAll(async () => {
  await server.stop();
});

describe('job metrics', () => {
  it('exposes queue depth, runs with durations and failures by type', async () => {
    // A video that does not exist: the job finds nothing to score and succeeds.
    await server.deps.jobs.enqueue('evaluate-video', { videoId: 'no-such-video' }, { subject: 'video:none' });
    // A payload the handler refuses: a permanent failure.
    await server.deps.jobs.enqueue('evaluate-video', { nope: 'x' }, { subject: 'video:bad' });
    await waitFor(
      () => jobsAbout(server.deps, ['video:none', 'video:bad']),
      (jobs) => jobs.length === 2 && jobs.every((j) => j.state === 'succeeded' || j.state === 'failed'),
      20_000,
    );
    const body = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(body).toMatch(/vesta_jobs\{type="evaluate-video",state="(succeeded|completed)"\} 1/);
    expect(body).toMatch(/vesta_jobs\{type="evaluate-video",state="failed"\} 1/);
    expect(body).toMatch(/vesta_job_runs_total\{type="evaluate-video",outcome="succeeded"\} 1/);
    expect(body).toMatch(/vesta_job_run_seconds_total\{type="evaluate-video",outcome="succeeded"\} \d/);
    expect(body).toMatch(/vesta_job_failures_total\{type="evaluate-video"\} 1/);
  });
});
