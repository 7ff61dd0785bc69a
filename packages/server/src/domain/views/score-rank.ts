/**
 * What the Score and Rank services return: sessions, their videos and scores, upload tickets and
 * the leaderboard. Plain types of the service layer; the HTTP schemas that serialise them
 * (`http/schemas/sessions.ts`) are checked against them at compile time (`http/schemas/view-contracts.ts`).
 */
import type { VideoState } from '../clip-lifecycle.js';

/** The media types a clip may be uploaded as. */
export const VIDEO_CONTENT_TYPES = [
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'video/x-msvideo',
  'video/x-matroska',
  'video/mpeg',
  'video/x-m4v',
  'image/gif',
] as const;
export type VideoContentType = (typeof VIDEO_CONTENT_TYPES)[number];

export type { VideoState };

/** Auxiliary prompt info for VBench's semantic dimensions (VBench's `auxiliary_info`). */
export interface AuxiliaryInfo {
  object?: string;
  color?: string;
  relationship?: string;
  scene?: string;
  appearance_style?: string;
  action?: string;
  object_a?: string;
  object_b?: string;
}

/** The frames a method read. */
export interface FramesUsedView {
  count: number;
  width: number;
  height: number;
  /** How frames were sampled (all, every, uniform, fps); the object carries that sampling's own fields too. */
  sampling: { kind: string };
  /** The clip's frame rate the sampling used (absent on scores stored before it was recorded). */
  fps?: number;
  /** True when that rate was assumed: the clip states none the engine can use. */
  fpsAssumed?: boolean;
}

export interface ScoreView {
  dimension: string;
  value: number;
  method: string;
  methodVersion: string;
  frames: FramesUsedView;
  models: Array<{ id: string; revision: string }>;
  elapsedMs: number;
}

export interface DimensionFailureView {
  dimension: string;
  code: string;
  detail: string;
}

/** Scores that do not read the clip's prompt: which dimensions would, and the models they need. */
export interface PromptNoticeView {
  code: 'prompt_not_read';
  detail: string;
  dimensions: string[];
  models: string[];
  command: string;
}

/** A dimension a user asked for that could not be scored on this server, why, and the fix. */
export interface UnscoredDimensionView {
  dimension: string;
  /** model_unavailable, method_unavailable, or the engine's code of the clips' failures. */
  code: string;
  detail: string;
  /** Models that would score it (empty when none would). */
  models: string[];
  /** The command that fetches them, or null. */
  command: string | null;
}

export interface VideoView {
  videoId: string;
  fileName: string;
  contentType: string;
  prompt: string | null;
  auxiliary: AuxiliaryInfo | null;
  state: VideoState;
  error: { code: string; detail: string } | null;
  sizeBytes: number | null;
  dimensions: string[];
  scores: ScoreView[];
  failures: DimensionFailureView[];
  /** Set on a scored clip made from a prompt when none of its scores reads the prompt. */
  promptNotice: PromptNoticeView | null;
  createdAt: string;
  uploadedAt: string | null;
  confirmedAt: string | null;
  scoredAt: string | null;
}

export interface ScoreSessionView {
  runId: string;
  kind: 'score';
  createdAt: string;
  videos: VideoView[];
}

export interface RankSessionView {
  runId: string;
  kind: 'rank';
  prompt: string | null;
  promptLocked: boolean;
  createdAt: string;
  videos: VideoView[];
}

/** An upload request (Rank's shape; Score's differs only in `prompt` being required). */
export interface UploadUrlInput {
  fileName: string;
  contentType: string;
  prompt?: string;
  auxiliary?: AuxiliaryInfo;
  sizeBytes?: number;
}

/** Where and how to PUT a clip's bytes. */
export interface UploadUrlView {
  videoId: string;
  uploadUrl: string;
  method: 'PUT';
  headers: { 'Content-Type': string; 'Content-Length'?: string };
  expiresAt: string;
  maxBytes: number;
}

/** The answer to a PUT through the service's own upload route. */
export interface ReceivedUpload {
  videoId: string;
  state: 'uploaded';
  sizeBytes: number;
}

export interface LeaderboardEntryView {
  rank: number | null;
  videoId: string;
  fileName: string;
  overall: number | null;
  scores: ScoreView[];
  state: VideoState;
}

export interface LeaderboardView {
  runId: string;
  prompt: string | null;
  formula: string;
  /** Why no entry has a confidence interval (a single clip has none). */
  uncertainty: string;
  /** Set when the ranking reads nothing of the prompt (no prompt-reading dimension was scored). */
  promptNotice: PromptNoticeView | null;
  entries: LeaderboardEntryView[];
}
