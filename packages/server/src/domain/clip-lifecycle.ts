/**
 * A clip's lifecycle, as pure data (no I/O): the video's states and, for a Bench clip, its task's
 * states, each with its transition table. The run's own machine is `bench-state.ts`.
 *
 *   video   awaiting_upload ──► uploaded ──► queued ──► scoring ──► scored
 *                                   │          ▲  │        │  ▲
 *                                   │          │  └──┐     │  └ (restarted after a crash)
 *                                   │          └─────┼─────┘ (cut off: shutdown, retry)
 *                                   └──► failed ◄────┴───────┘ (refused at confirm, or not scorable)
 *
 *   task    pending ──► claimed ──► evaluating ──► done
 *              ▲           │  │
 *              └───────────┘  └──► failed        (and any unfinished state ──► cancelled)
 *
 * A task is `claimed` while a runner holds its lease; `complete` moves it to `evaluating` in the
 * transaction that confirms its video (`uploaded → queued`) and queues the evaluation; storing the
 * video's scores (`scoring → scored | failed`) moves it to `done` in the same transaction. `uploaded`
 * is a task state only older servers wrote; it is read as `evaluating`.
 *
 * Every state change is one named move below (`VIDEO_MOVES`, `TASK_MOVES`): its sources and targets.
 * The repositories apply a move as a compare-and-set (`WHERE state IN move.from`, `SET state =` one
 * of `move.to`); a move whose pair is not in the table does not compile (`videoMove`, `taskMove`).
 */

export const VIDEO_STATES = ['awaiting_upload', 'uploaded', 'queued', 'scoring', 'scored', 'failed'] as const;
export type VideoState = (typeof VIDEO_STATES)[number];

/** Every allowed move of a video, from → the states it may go to. Anything absent is illegal. */
export const VIDEO_TRANSITIONS = {
  awaiting_upload: ['uploaded'],
  uploaded: ['queued', 'failed'],
  queued: ['scoring', 'failed'],
  // scoring → scoring: an evaluation cut off by a process that died is started again.
  scoring: ['scoring', 'queued', 'scored', 'failed'],
  scored: [],
  failed: [],
} as const satisfies Record<VideoState, readonly VideoState[]>;

export const BENCH_TASK_STATES = [
  'pending',
  'claimed',
  'uploaded',
  'evaluating',
  'done',
  'failed',
  'cancelled',
] as const;
export type BenchTaskState = (typeof BENCH_TASK_STATES)[number];

/** Every allowed move of a Bench task, from → the states it may go to. Anything absent is illegal. */
export const TASK_TRANSITIONS = {
  pending: ['claimed', 'cancelled'],
  claimed: ['pending', 'evaluating', 'failed', 'cancelled'],
  uploaded: ['done', 'cancelled'],
  evaluating: ['done', 'cancelled'],
  done: [],
  failed: [],
  cancelled: [],
} as const satisfies Record<BenchTaskState, readonly BenchTaskState[]>;

/** One named state change: the states it applies to and those it may leave the row in. */
export interface Move<S extends string, F extends S = S, T extends S = S> {
  readonly from: readonly F[];
  readonly to: readonly T[];
}

/** The states from which every state of `T` may be entered (`T` may be a union). */
type SourcesOf<Table extends Record<string, readonly string[]>, T extends string> = {
  [K in keyof Table & string]: [T] extends [Table[K][number]] ? K : never;
}[keyof Table & string];

/** A video move; a source that may not enter every target does not compile. */
export function videoMove<T extends VideoState, F extends SourcesOf<typeof VIDEO_TRANSITIONS, T>>(
  to: readonly T[],
  from: readonly F[],
): Move<VideoState, F, T> {
  return { from, to };
}

/** A task move; a source that may not enter every target does not compile. */
export function taskMove<T extends BenchTaskState, F extends SourcesOf<typeof TASK_TRANSITIONS, T>>(
  to: readonly T[],
  from: readonly F[],
): Move<BenchTaskState, F, T> {
  return { from, to };
}

/** Every state change of a video, by name. */
export const VIDEO_MOVES = {
  /** Its bytes are in the store (the PUT finished, or a direct upload was found there). */
  arrive: videoMove(['uploaded'], ['awaiting_upload']),
  /** Verification refused the upload (not a video, empty, too large). */
  refuse: videoMove(['failed'], ['uploaded']),
  /** Verified: its evaluation is queued. */
  confirm: videoMove(['queued'], ['uploaded']),
  /** The evaluation started (or started again after its process died). */
  startScoring: videoMove(['scoring'], ['queued', 'scoring']),
  /** The evaluation was cut off (shutdown, a retry): it waits in the queue again. */
  requeue: videoMove(['queued'], ['scoring']),
  /** The evaluation settled: scores stored, or none could be taken. */
  settle: videoMove(['scored', 'failed'], ['scoring']),
  /** The evaluation failed for good (its job used up its attempts). */
  giveUp: videoMove(['failed'], ['queued', 'scoring']),
} as const;

/** Every state change of a Bench task, by name. */
export const TASK_MOVES = {
  /** A runner leases it (one more attempt). */
  lease: taskMove(['claimed'], ['pending']),
  /** Its runner delivered a verified clip: the clip's evaluation is queued with the move. */
  deliver: taskMove(['evaluating'], ['claimed']),
  /** The attempt ended (the runner failed, the clip was refused, the lease expired): again or failed. */
  endAttempt: taskMove(['pending', 'failed'], ['claimed']),
  /** Its runner was deregistered: back to the queue, the attempt not counted. */
  release: taskMove(['pending'], ['claimed']),
  /** The clip's evaluation settled (scored or not): stored in the same transaction. */
  settle: taskMove(['done'], ['uploaded', 'evaluating']),
  /** The run ended (completed, failed, cancelled) before the task did. */
  cancel: taskMove(['cancelled'], ['pending', 'claimed', 'uploaded', 'evaluating']),
} as const;

/** Tasks in these states have a clip whose evaluation has not settled. */
export const SETTLING_TASK_STATES = TASK_MOVES.settle.from;
/** Tasks in these states are unfinished: a run that ends cancels them. */
export const UNFINISHED_TASK_STATES = TASK_MOVES.cancel.from;

export function canVideoTransition(from: VideoState, to: VideoState): boolean {
  return (VIDEO_TRANSITIONS[from] as readonly VideoState[]).includes(to);
}

export function canTaskTransition(from: BenchTaskState, to: BenchTaskState): boolean {
  return (TASK_TRANSITIONS[from] as readonly BenchTaskState[]).includes(to);
}
