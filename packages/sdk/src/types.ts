/** Public resource types. */
export type VideoState = 'awaiting_upload' | 'uploaded' | 'queued' | 'scoring' | 'scored' | 'failed';
export type BenchStatus = 'queued' | 'generating' | 'evaluating' | 'completed' | 'failed' | 'cancelled';

export interface VideoSummary {
  videoId: string;
  state: VideoState;
  error?: { code: string; detail: string } | null;
  [key: string]: unknown;
}
export interface ScoreSession {
  runId: string;
  videos: VideoSummary[];
  [key: string]: unknown;
}
export type RankSession = ScoreSession & { prompt: string | null };
export interface UploadTicket {
  videoId: string;
  uploadUrl: string;
  expiresAt?: string;
  method?: string;
  headers?: Record<string, string>;
}
export interface BenchRun {
  id: string;
  name: string;
  status: BenchStatus;
  [key: string]: unknown;
}
export interface UploadConfirmation {
  videoId: string;
  state: VideoState;
  [key: string]: unknown;
}
export interface RankLeaderboard {
  runId: string;
  [key: string]: unknown;
}
export interface Dimension {
  id: string;
  [key: string]: unknown;
}
export interface Model {
  id: string;
  [key: string]: unknown;
}
export interface BenchCreateParams {
  name: string;
  modelId: string;
  dimensions: string[];
  runnerId?: string;
}
export interface BenchRunPage {
  data: BenchRun[];
  page: number;
  limit: number;
  total: number;
}
export interface BenchVideos {
  data: unknown[];
}
export interface BenchLogs {
  data: unknown[];
}
export interface DimensionList {
  data: Dimension[];
}
export interface ModelList {
  data: Model[];
}
