/**
 * The Bench area's services, built once by the composition root and shared by the Bench, runner
 * and discovery routes and by the worker (lease reaper, evaluation hook): one task notifier per
 * process, so that a claim long-polling in a request wakes when another request or the worker
 * makes a task claimable. Claims waiting in other API processes are woken through ClusterEvents.
 */
import type { DimensionInfo } from '@vesta/engine';
import type { BlobStore } from '../ports/blob-store.js';
import type { ClusterEvents } from '../ports/cluster-events.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Repositories } from '../repositories/index.js';
import { ModelCatalog } from './bench-discovery.js';
import { BenchOrchestrator } from './bench-orchestrator.js';
import { BenchService } from './bench-runs.js';
import { RunnerRegistry } from './runner-registry.js';
import { RunnerTaskService } from './runner-tasks.js';
import { TaskNotifier } from './task-notifier.js';
import type { UploadService } from './upload-service.js';
import type { VideoService } from './video-service.js';

export interface BenchArea {
  /** Runs as their owner sees them: create, read, cancel, delete. */
  runs: BenchService;
  /** Runs' status moves, driven by runners and the evaluator. */
  orchestrator: BenchOrchestrator;
  /** Registered runners. */
  runners: RunnerRegistry;
  /** What runners do with tasks: claim, heartbeat, upload, complete, fail; the lease reaper. */
  tasks: RunnerTaskService;
  models: ModelCatalog;
  notifier: TaskNotifier;
}

export interface BenchAreaDeps {
  repos: Repositories;
  blobs: BlobStore;
  jobs: JobQueue;
  uploads: UploadService;
  videos: VideoService;
  dimensions: () => DimensionInfo[];
  /** Lease of a claimed task, in seconds. */
  leaseSeconds: number;
  /** Attempts of a generation task before it fails. */
  maxAttempts: number;
  /** Tells the other processes (default: none, one process). */
  events?: ClusterEvents;
}

export function createBenchArea(deps: BenchAreaDeps): BenchArea {
  const events = deps.events;
  // A lost message costs latency only: a long-poll also ends at its own timeout and the runner polls again.
  const notifier = new TaskNotifier(
    events ? () => void events.publish('tasks', '').catch(() => undefined) : undefined,
  );
  events?.subscribe('tasks', () => notifier.wake());
  events?.onResync(() => notifier.wake());
  const orchestrator = new BenchOrchestrator({ repos: deps.repos });
  const runs = new BenchService({
    repos: deps.repos,
    blobs: deps.blobs,
    jobs: deps.jobs,
    orchestrator,
    dimensions: deps.dimensions,
    maxAttempts: deps.maxAttempts,
    onTasksAvailable: () => notifier.notify(),
  });
  const runners = new RunnerRegistry({ repos: deps.repos, orchestrator, notifier });
  const tasks = new RunnerTaskService({
    repos: deps.repos,
    registry: runners,
    orchestrator,
    uploads: deps.uploads,
    videos: deps.videos,
    notifier,
    leaseSeconds: deps.leaseSeconds,
  });
  const models = new ModelCatalog({ repos: deps.repos });
  return { runs, orchestrator, runners, tasks, models, notifier };
}
