/**
 * The Bench area's services, built once by the composition root and shared by the Bench, runner
 * and discovery routes and by the worker (lease reaper, a finished run's scorecard): one task notifier per
 * process, so that a claim long-polling in a request wakes when another request or the worker
 * makes a task claimable. Claims waiting in other API processes are woken through ClusterEvents.
 */
import type { DimensionInfo } from '@vesta/engine';
import type { BlobStore } from '../ports/blob-store.js';
import type { ClusterEvents } from '../ports/cluster-events.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Repositories } from '../repositories/index.js';
import { ModelService } from './model.service.js';
import { BenchProgressService } from './bench-progress.service.js';
import { BenchRunService } from './bench-run.service.js';
import { RunnerService } from './runner.service.js';
import { RunnerClaimService } from './runner-claim.service.js';
import { RunnerTaskService } from './runner-task.service.js';
import { LeaseReaperService } from './lease-reaper.service.js';
import { BenchComparisonService } from './bench-comparison.service.js';
import { BenchScorecardService } from './bench-scorecard.service.js';
import { ModelBaselineService } from './model-baseline.service.js';
import { TaskNotifier } from './task-notifier.js';
import type { ClipIntakeService } from './clip-intake.service.js';
import type { UploadService } from './upload.service.js';
import type { VideoService } from './video.service.js';

export interface BenchArea {
  /** Runs as their owner sees them: create, read, cancel, delete. */
  runs: BenchRunService;
  /** Runs' status moves outside the clip path: claims, failed attempts, the lease reaper, cancels. */
  progress: BenchProgressService;
  /** Registered runners. */
  runners: RunnerService;
  /** Runners' claims of tasks (a long-poll). */
  claims: RunnerClaimService;
  /** What runners do with a claimed task: heartbeat, upload, complete, fail. */
  tasks: RunnerTaskService;
  /** Expired leases end (the worker's periodic duty). */
  reaper: LeaseReaperService;
  models: ModelService;
  notifier: TaskNotifier;
  /** Runs' scorecards with their intervals (stored when a run ends). */
  scorecards: BenchScorecardService;
  /** Comparison of runs and the regression gate. */
  comparisons: BenchComparisonService;
  /** Each model's baseline run, per user. */
  baselines: ModelBaselineService;
}

export interface BenchAreaDeps {
  repos: Repositories;
  blobs: BlobStore;
  jobs: JobQueue;
  uploads: UploadService;
  intake: ClipIntakeService;
  videos: VideoService;
  dimensions: () => readonly DimensionInfo[];
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
  const scorecards = new BenchScorecardService(deps.repos);
  const progress = new BenchProgressService({
    repos: deps.repos,
    onRunEnded: (runId) => scorecards.runEnded(runId),
  });
  const runs = new BenchRunService({
    repos: deps.repos,
    blobs: deps.blobs,
    jobs: deps.jobs,
    progress,
    scorecards,
    dimensions: deps.dimensions,
    maxAttempts: deps.maxAttempts,
    onTasksAvailable: () => notifier.notify(),
  });
  const runners = new RunnerService({ repos: deps.repos, progress, notifier });
  const claims = new RunnerClaimService({
    repos: deps.repos,
    runners,
    progress,
    notifier,
    leaseSeconds: deps.leaseSeconds,
  });
  const tasks = new RunnerTaskService({
    repos: deps.repos,
    runners,
    progress,
    uploads: deps.uploads,
    intake: deps.intake,
    jobs: deps.jobs,
    videos: deps.videos,
    notifier,
    leaseSeconds: deps.leaseSeconds,
  });
  const models = new ModelService({ repos: deps.repos });
  const comparisons = new BenchComparisonService(deps.repos);
  const baselines = new ModelBaselineService(deps.repos);
  const reaper = new LeaseReaperService(deps.repos, progress, notifier);
  return {
    runs,
    progress,
    runners,
    claims,
    tasks,
    reaper,
    models,
    notifier,
    scorecards,
    comparisons,
    baselines,
  };
}
