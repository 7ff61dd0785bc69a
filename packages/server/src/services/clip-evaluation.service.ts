/**
 * A clip's evaluation (the `evaluate-video` job): the engine scores the confirmed bytes, and one
 * transaction settles it — the video's scores (or its failure) are stored and, for a Bench clip,
 * the run's repository marks its task `done`, logs what the evaluator found and moves the run on
 * (`domain/bench-advance.ts`). A run that ended so gets its scorecard stored (`runEnded`).
 * Scores come only from `engine.evaluate` on the uploaded bytes; nothing else writes them.
 */
import type { ClipProbe, DimensionFailure, DimensionScore, Engine, EvaluationResult } from '@vesta/engine';
import { EngineError } from '@vesta/engine';
import { BlobChangedError } from '../ports/blob-store.js';
import type { BlobStore, LocalBlob } from '../ports/blob-store.js';
import type { Logger } from '../ports/logger.js';
import type { Repositories, ScoreRecord, TransactionRepositories } from '../repositories/index.js';

/**
 * Told when a settled clip ended its Bench run: its scorecard is stored then (a failure leaves the
 * run ended, and the scorecard to be computed on its first read).
 */
export type RunEnded = (runId: string) => Promise<void>;

/** How an evaluation settled. */
type Settlement =
  | { scores: readonly DimensionScore[]; failures: readonly DimensionFailure[] }
  | { error: { code: string; detail: string } };

export class ClipEvaluationService {
  constructor(
    private readonly repos: Repositories,
    private readonly blobs: BlobStore,
    private readonly engine: Engine,
    private readonly runEnded: RunEnded,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Scores one video. Engine errors about the clip settle it `failed` with the engine's code; an
   * abort (shutdown, reset) puts it back to `queued` and rethrows; any other error is rethrown for
   * the queue to retry.
   */
  async evaluate(videoId: string, signal: AbortSignal, log: Logger): Promise<void> {
    const video = await this.repos.videos.byId(videoId);
    // `queued → scoring` (or a restart of `scoring`), a compare-and-set: anything else is settled.
    if (!video || !(await this.repos.videos.startScoring(videoId))) {
      log.info({ videoId, state: video?.state ?? 'deleted' }, 'nothing to score');
      return;
    }
    const dimensions = JSON.parse(video.dimensions ?? '[]') as DimensionScore['dimension'][];
    let result: EvaluationResult;
    // The probe confirm-upload took of this very object (one download and no second probe per
    // evaluation); a video confirmed before probes were kept is probed by the engine.
    const probe = video.probe === null ? undefined : (JSON.parse(video.probe) as Partial<ClipProbe>);
    let local: LocalBlob | undefined;
    try {
      local = await this.blobs.localFile(video.blob_key, { signal, version: video.blob_version });
      result = await this.engine.evaluate(local.path, {
        dimensions,
        ...(video.prompt === null ? {} : { prompt: video.prompt }),
        ...(video.auxiliary === null
          ? {}
          : { auxiliary: JSON.parse(video.auxiliary) as Record<string, string> }),
        ...(probe !== undefined && typeof probe.streamIndex === 'number'
          ? { probe: probe as ClipProbe }
          : {}),
        signal,
      });
    } catch (error) {
      if (signal.aborted) {
        await this.repos.videos.requeueIfScoring(videoId);
        throw error;
      }
      if (error instanceof EngineError) {
        await this.giveUp(videoId, error.code, error.message);
        log.info({ videoId, code: error.code }, 'video could not be scored');
        return;
      }
      if (error instanceof BlobChangedError) {
        await this.giveUp(
          videoId,
          'not_a_video',
          'the uploaded object was replaced after it was confirmed; upload the clip again',
        );
        log.warn({ videoId }, 'video object changed after confirm');
        return;
      }
      // The job runs again (a retry, or a wait for the blob store to come back): queued meanwhile.
      await this.repos.videos.requeueIfScoring(videoId).catch(() => undefined);
      throw error;
    } finally {
      await local?.release();
    }
    await this.settle(videoId, { scores: result.scores, failures: result.failures });
    log.info(
      {
        videoId,
        scores: result.scores.length,
        failures: result.failures.length,
        elapsedMs: result.elapsedMs,
      },
      'video scored',
    );
  }

  /** The evaluation failed for good (not scorable, or its job used up its attempts). */
  async giveUp(videoId: string, code: string, detail: string): Promise<void> {
    await this.settle(videoId, { error: { code, detail } });
  }

  /**
   * One transaction: the video settles (`scoring → scored | failed`, a compare-and-set; a video
   * deleted by a reset or settled meanwhile keeps nothing); for a Bench clip its task becomes
   * `done`, the run's log gets the evaluator's line and the run moves on, as this transaction's
   * counters allow.
   */
  private async settle(videoId: string, how: Settlement): Promise<void> {
    const t = this.now();
    const ended = await this.repos.transaction(async (tx) => {
      const error = 'error' in how ? how.error : noScores(how);
      const settled =
        'error' in how
          ? await tx.videos.markFailed(videoId, how.error.code, how.error.detail, t)
          : await tx.videos.finishScoring(videoId, {
              state: error === null ? 'scored' : 'failed',
              error_code: error?.code ?? null,
              error_detail: error?.detail ?? null,
              scored_at: t,
            });
      if (!settled) return null;
      if (!('error' in how)) await storeResults(tx, videoId, how, t);
      const task = await tx.benchLifecycle.settleTask(videoId, t, error);
      if (!task) return null;
      const what = `clip #${task.seq} (${task.prompt_id ?? 'prompt'}, sample ${task.sample_index}, video ${videoId})`;
      const scores = 'error' in how ? [] : [...how.scores].sort(byDimension);
      const failures = 'error' in how ? [] : [...how.failures].sort(byDimension);
      await tx.benchLifecycle.appendLog({
        run_id: task.run_id,
        time: t,
        source: 'evaluator',
        level: error !== null || failures.length > 0 ? 'warn' : 'info',
        message:
          error !== null
            ? `${what} could not be scored (${error.code}): ${error.detail}`
            : `${what} scored: ${scores
                .map((x) => `${x.dimension}=${x.value.toFixed(4)} (${x.method})`)
                .join(
                  ', ',
                )}${failures.length > 0 ? `; not scored: ${failures.map((f) => `${f.dimension} (${f.code})`).join(', ')}` : ''}`,
      });
      // The run's counters count this clip (the database keeps them): the last one ends the run.
      return (await tx.benchLifecycle.advance(task.run_id, t)) === null ? null : task.run_id;
    });
    if (ended !== null) await this.runEnded(ended).catch(() => undefined);
  }
}

/** A scoring that scored nothing fails with its first failure. */
function noScores(results: {
  scores: readonly DimensionScore[];
  failures: readonly DimensionFailure[];
}): { code: string; detail: string } | null {
  if (results.scores.length > 0) return null;
  const first = results.failures[0];
  return {
    code: first?.code ?? 'method_unavailable',
    detail: first?.detail ?? 'no dimension could be scored',
  };
}

const byDimension = (a: { dimension: string }, b: { dimension: string }): number =>
  a.dimension < b.dimension ? -1 : a.dimension > b.dimension ? 1 : 0;

async function storeResults(
  tx: TransactionRepositories,
  videoId: string,
  results: { scores: readonly DimensionScore[]; failures: readonly DimensionFailure[] },
  t: number,
): Promise<void> {
  await tx.videos.deleteResults(videoId);
  await tx.videos.insertScores(
    results.scores.map((s): ScoreRecord => ({
      video_id: videoId,
      dimension: s.dimension,
      value: s.value,
      method: s.method,
      method_version: s.methodVersion,
      frames: JSON.stringify({
        count: s.frames.count,
        width: s.frames.width,
        height: s.frames.height,
        sampling: s.frames.sampling,
        fps: s.frames.fps,
        fpsAssumed: s.frames.fpsAssumed,
      }),
      models: JSON.stringify(s.models.map((m) => ({ id: m.id, revision: m.revision }))),
      details: s.details === undefined ? null : JSON.stringify(s.details),
      elapsed_ms: s.elapsedMs,
      created_at: t,
    })),
  );
  await tx.videos.insertFailures(
    results.failures.map((f) => ({
      video_id: videoId,
      dimension: f.dimension,
      code: f.code,
      detail: f.detail,
    })),
  );
}
