/**
 * The Rank leaderboard. Each scored candidate's overall score uses VBench's leaderboard
 * normalisation from the engine (`normalise`, as the Bench scorecard does):
 * n_d = w_d·(x_d − min_d)/(max_d − min_d) per dimension, overall = Σ n_d / Σ w_d over the dimensions the candidate has scores for. Ties are broken by the
 * earlier confirm, then by videoId. Candidates without scores follow, in upload order, rank null.
 */
import { isDimensionId, normalisationOf, normalise } from '@vesta/engine';
import type { DimensionInfo } from '@vesta/engine';
import { promptNotice } from './prompt-notice.js';
import type { LeaderboardView, VideoView } from '../domain/views/score-rank.js';

export const LEADERBOARD_FORMULA =
  'overall = Σ_d w_d·(x_d − min_d)/(max_d − min_d) / Σ_d w_d over the dimensions scored for the clip, with VBench leaderboard constants (min, max, weight) per dimension; higher is better; ties: earlier confirm, then videoId; unscored clips last with rank null.';

export const LEADERBOARD_UNCERTAINTY =
  'No intervals: each candidate is a single clip, scored once on deterministically sampled frames (scoring it again gives the same numbers), so there is nothing to resample and a single clip has no confidence interval. To know how sure a difference between generators is, compare Bench runs: their scores carry 95 % intervals over prompts.';

export function overallScore(video: VideoView): number | null {
  let sum = 0;
  let weights = 0;
  for (const s of video.scores) {
    if (!isDimensionId(s.dimension)) continue;
    const { min, max, weight } = normalisationOf(s.dimension);
    if (max === min) continue;
    sum += normalise(s.dimension, s.value);
    weights += weight;
  }
  return weights > 0 ? sum / weights : null;
}

export function buildLeaderboard(
  runId: string,
  prompt: string | null,
  videos: readonly VideoView[],
  dimensions: readonly DimensionInfo[] = [],
): LeaderboardView {
  const withOverall = videos.map((v) => ({
    v,
    overall: v.state === 'scored' ? overallScore(v) : null,
  }));
  const scored = withOverall.filter((e) => e.overall !== null);
  const unscored = withOverall.filter((e) => e.overall === null);
  scored.sort(
    (a, b) =>
      (b.overall ?? 0) - (a.overall ?? 0) ||
      (a.v.confirmedAt ?? '').localeCompare(b.v.confirmedAt ?? '') ||
      a.v.videoId.localeCompare(b.v.videoId),
  );
  unscored.sort(
    (a, b) => a.v.createdAt.localeCompare(b.v.createdAt) || a.v.videoId.localeCompare(b.v.videoId),
  );
  return {
    runId,
    prompt,
    formula: LEADERBOARD_FORMULA,
    uncertainty: LEADERBOARD_UNCERTAINTY,
    promptNotice: promptNotice(
      dimensions,
      'rank',
      prompt,
      scored.flatMap((e) => e.v.scores.map((s) => s.dimension)),
    ),
    entries: [
      ...scored.map((e, i) => ({
        rank: i + 1,
        videoId: e.v.videoId,
        fileName: e.v.fileName,
        overall: e.overall,
        scores: e.v.scores,
        state: e.v.state,
      })),
      ...unscored.map((e) => ({
        rank: null,
        videoId: e.v.videoId,
        fileName: e.v.fileName,
        overall: null,
        scores: e.v.scores,
        state: e.v.state,
      })),
    ],
  };
}
