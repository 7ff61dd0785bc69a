/** Public resource types (mirroring the server's schemas). */
export type VideoState = 'awaiting_upload' | 'uploaded' | 'queued' | 'scoring' | 'scored' | 'failed';
export type BenchStatus = 'queued' | 'generating' | 'evaluating' | 'completed' | 'failed' | 'cancelled';

export interface Score {
  dimension: string;
  value: number;
  method: string;
  methodVersion: string;
  frames: { count: number; width: number; height: number; sampling: { kind: string; [k: string]: unknown } };
  models: { id: string; revision: string }[];
  elapsedMs: number;
}
export interface VideoSummary {
  videoId: string;
  fileName: string;
  contentType: string;
  prompt: string | null;
  auxiliary: Record<string, string> | null;
  state: VideoState;
  error: { code: string; detail: string } | null;
  sizeBytes: number | null;
  dimensions: string[];
  scores: Score[];
  failures: { dimension: string; code: string; detail: string }[];
  createdAt: string;
  uploadedAt: string | null;
  confirmedAt: string | null;
  scoredAt: string | null;
}
export interface ScoreSession {
  runId: string;
  kind: 'score';
  createdAt: string;
  videos: VideoSummary[];
}
export interface RankSession {
  runId: string;
  kind: 'rank';
  prompt: string | null;
  promptLocked: boolean;
  createdAt: string;
  videos: VideoSummary[];
}
export interface UploadTicket {
  videoId: string;
  uploadUrl: string;
  method: 'PUT';
  headers: { 'Content-Type': string };
  expiresAt: string;
  maxBytes: number;
}
export type UploadConfirmation = VideoSummary;
export interface RankLeaderboard {
  runId: string;
  prompt: string | null;
  formula: string;
  entries: { rank: number | null; videoId: string; fileName: string; overall: number | null; scores: Score[]; state: VideoState }[];
}
export interface BenchRun {
  id: string;
  name: string;
  dimensions: string[];
  model_id: string;
  runner_id: string | null;
  status: BenchStatus;
  progress: { tasks_total: number; tasks_generated: number; tasks_done: number; tasks_failed: number };
  error: { code: string; detail: string } | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}
export interface BenchVideo {
  task_id: string;
  seq: number;
  prompt: string;
  state: string;
  video_id: string | null;
  scores: { dimension: string; value: number; method: string; method_version: string }[];
  [key: string]: unknown;
}
export interface BenchLogLine {
  seq: number;
  time: string;
  source: 'server' | 'runner' | 'evaluator';
  level: 'info' | 'warn' | 'error';
  message: string;
}
export interface Dimension {
  id: string;
  name: string;
  description: string;
  category: 'quality' | 'semantic';
  default_method: string | null;
  workflows: ('score' | 'rank' | 'bench')[];
  [key: string]: unknown;
}
export interface DimensionList {
  items: Dimension[];
}
export interface Model {
  id: string;
  name: string;
  description: string;
  online: boolean;
  runners: { id: string; name: string; online: boolean; last_seen_at: string | null }[];
  created_at: string;
}
export interface ModelList {
  items: Model[];
}
/** Parameters of `bench.create` (camelCase; sent as the API's snake_case fields). */
export interface BenchCreateParams {
  name: string;
  modelId: string;
  dimensions: string[];
  runnerId?: string;
}
