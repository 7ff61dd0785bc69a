/**
 * What the runner services return, and what runners send: registered runners, generation tasks
 * and their leases, log lines. Checked against the HTTP schemas (`http/routes/runners/schemas.ts`)
 * at compile time.
 */
import type { BenchLogLevel, BenchTaskState } from '../../db/schema-bench.js';
import type { VideoView } from './score-rank.js';

export interface RunnerView {
  id: string;
  name: string;
  models: string[];
  maxConcurrency: number;
  version: string | null;
  createdAt: string;
  lastSeenAt: string | null;
  online: boolean;
}

export interface LeaseView {
  id: string;
  expiresAt: string;
  ttlSeconds: number;
}

export interface RunnerTaskView {
  id: string;
  runId: string;
  modelId: string;
  prompt: string;
  auxiliary: Record<string, string>;
  dimensions: string[];
  sampleIndex: number;
  seed: number;
  /** 1 for the first claim. */
  attempt: number;
  maxAttempts: number;
  state: BenchTaskState;
  lease: LeaseView | null;
  error: { code: string; detail: string } | null;
}

/** A renewed lease; `cancelled` when the run ended (the runner should stop). */
export interface HeartbeatView {
  expiresAt: string;
  cancelled: boolean;
}

/** A completed task and the clip it delivered. */
export interface CompletedTaskView {
  task: RunnerTaskView;
  video: VideoView;
}

export interface RunnerLogLine {
  at?: string | undefined;
  level?: BenchLogLevel | undefined;
  message: string;
}

export interface RegisterRunnerInput {
  name: string;
  models: string[];
  maxConcurrency?: number | undefined;
  version?: string | undefined;
}
