/**
 * How a Bench run moves on from its task counters, as pure data (no I/O): the orchestrator's rules.
 * The repository of the run's lifecycle (`bench-lifecycle.repository.ts`) applies the moves, each
 * a compare-and-set on the stored status, inside the transaction that changed the counters.
 *
 * - no task pending or leased any more → `generating → evaluating` (a run still `queued` goes
 *   through `generating` first);
 * - no clip left to evaluate either → `completed` when every dimension has at least one scored
 *   clip, else `failed` (`no_scored_clips`).
 */
import { isTerminalBenchStatus } from './bench-state.js';
import type { BenchStatus } from './bench-state.js';
import type { BenchTaskState } from './clip-lifecycle.js';

/** What the run's row says about its progress: its status and per-state task counters. */
export type RunCounters = { status: BenchStatus } & Record<`n_${BenchTaskState}`, number>;

/** One status move of a run, with what its log line says. */
export interface RunMove {
  from: BenchStatus;
  to: BenchStatus;
  message?: string;
  error?: { code: string; detail: string };
}

/** The moves the run makes now, in order; `finish`: every clip is accounted for (see `finishMove`). */
export function advanceOf(run: RunCounters): { moves: RunMove[]; finish: boolean } {
  if (isTerminalBenchStatus(run.status)) return { moves: [], finish: false };
  const n = (states: readonly BenchTaskState[]): number =>
    states.reduce((sum, state) => sum + run[`n_${state}`], 0);
  if (n(['pending', 'claimed']) > 0) return { moves: [], finish: false };
  const moves: RunMove[] = [];
  if (run.status === 'queued') moves.push({ from: 'queued', to: 'generating' });
  if (run.status === 'queued' || run.status === 'generating')
    moves.push({
      from: 'generating',
      to: 'evaluating',
      message: `every clip generated (${n(['uploaded', 'evaluating', 'done'])} accepted, ${n(['failed'])} failed)`,
    });
  return { moves, finish: n(['uploaded', 'evaluating']) === 0 };
}

/**
 * The last move of a run whose every clip is accounted for: `completed` if each of its
 * `dimensions` has a scored clip (`scored`), else `failed` with `no_scored_clips`.
 */
export function finishMove(
  run: RunCounters & { id: string },
  dimensions: readonly string[],
  scored: ReadonlySet<string>,
): RunMove {
  const done = run.n_done;
  const failed = run.n_failed;
  const missing = dimensions.filter((d) => !scored.has(d));
  if (missing.length === 0)
    return {
      from: 'evaluating',
      to: 'completed',
      message: `${done} clip(s) evaluated${failed > 0 ? `, ${failed} clip(s) failed` : ''}`,
    };
  return {
    from: 'evaluating',
    to: 'failed',
    error: {
      code: 'no_scored_clips',
      detail: `no clip could be scored for ${missing.join(', ')} (${done} clip(s) evaluated, ${failed} clip(s) failed to generate); see GET /api/v1/bench/${run.id}/videos and /logs`,
    },
  };
}

/** The run's log line for a move. */
export function moveLine(move: RunMove): { level: 'info' | 'error'; message: string } {
  const { from, to, message, error } = move;
  return {
    level: to === 'failed' ? 'error' : 'info',
    message: `${from} → ${to}${message ? `: ${message}` : ''}${error ? ` (${error.code}: ${error.detail})` : ''}`,
  };
}
