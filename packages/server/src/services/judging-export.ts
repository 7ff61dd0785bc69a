/**
 * Judging campaigns (issue #23): the export of a campaign's votes as CSV and JSONL, for training
 * reward models — clip ids, prompt, answer, judge pseudonym and time per vote.
 */
import type { JudgingClipRecord, VoteRow } from '../repositories/index.js';
import { iso } from './judging-access.js';

/** What the export writes per vote. */
export interface ExportedVote {
  vote_id: string;
  time: string;
  judge: string;
  judge_removed: boolean;
  prompt: string;
  answer: string;
  /** The clip the judge preferred (null for tie, both_bad and skip). */
  winner_clip_id: string | null;
  left_clip_id: string;
  right_clip_id: string;
  /** The clips' videos (null once deleted): `GET /api/v1/videos/{id}/content` reads them. */
  left_video_id: string | null;
  right_video_id: string | null;
  left_item: string;
  right_item: string;
  left_label: string;
  right_label: string;
}

export function exported(
  v: VoteRow,
  clips: Map<string, JudgingClipRecord>,
  labels: Map<string, string>,
): ExportedVote {
  const left = clips.get(v.left_clip);
  const right = clips.get(v.right_clip);
  const leftItem = left?.item ?? '';
  const rightItem = right?.item ?? '';
  return {
    vote_id: v.id,
    time: iso(v.created_at)!,
    judge: v.pseudonym,
    judge_removed: v.judge_removed_at !== null,
    prompt: left?.prompt ?? '',
    answer: v.answer,
    winner_clip_id: v.answer === 'left' ? v.left_clip : v.answer === 'right' ? v.right_clip : null,
    left_clip_id: v.left_clip,
    right_clip_id: v.right_clip,
    left_video_id: left?.video_id ?? null,
    right_video_id: right?.video_id ?? null,
    left_item: leftItem,
    right_item: rightItem,
    left_label: labels.get(leftItem) ?? '',
    right_label: labels.get(rightItem) ?? '',
  };
}

export const EXPORT_COLUMNS: (keyof ExportedVote)[] = [
  'vote_id',
  'time',
  'judge',
  'judge_removed',
  'prompt',
  'answer',
  'winner_clip_id',
  'left_clip_id',
  'right_clip_id',
  'left_video_id',
  'right_video_id',
  'left_item',
  'right_item',
  'left_label',
  'right_label',
];

/** RFC 4180 CSV, with a header row. */
export function votesCsv(votes: ExportedVote[]): string {
  const cell = (v: string | boolean | null): string => {
    const s = v === null ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [EXPORT_COLUMNS.join(','), ...votes.map((v) => EXPORT_COLUMNS.map((c) => cell(v[c])).join(','))]
    .map((l) => `${l}\r\n`)
    .join('');
}

export function votesJsonl(votes: ExportedVote[]): string {
  return votes.map((v) => `${JSON.stringify(v)}\n`).join('');
}
