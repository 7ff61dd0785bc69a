/**
 * The Bench run state machine, as pure data and functions (no I/O).
 *
 *   queued ──► generating ──► evaluating ──► completed
 *     │            │              │
 *     └────────────┴──────────────┴──► failed | cancelled
 *
 * - `queued`: created; no clip has been claimed by a runner yet.
 * - `generating`: runners are producing clips (evaluation of finished clips may already run).
 * - `evaluating`: every clip exists; the remaining evaluations are running.
 * - `completed`, `failed`, `cancelled`: terminal; nothing leaves them.
 *
 * Cancel is allowed from every non-terminal state. Delete is allowed only from a terminal state
 * (an active run must be cancelled first), so a delete never races a runner mid-upload.
 * The service applies a transition with a compare-and-set on the stored status; an illegal
 * transition is 409 `conflict`.
 */

export const BENCH_STATUSES = [
  'queued',
  'generating',
  'evaluating',
  'completed',
  'failed',
  'cancelled',
] as const;
export type BenchStatus = (typeof BENCH_STATUSES)[number];

export const TERMINAL_BENCH_STATUSES: readonly BenchStatus[] = ['completed', 'failed', 'cancelled'];

/** Every allowed move, from → the statuses it may go to. Anything absent is illegal. */
export const BENCH_TRANSITIONS: Readonly<Record<BenchStatus, readonly BenchStatus[]>> = {
  queued: ['generating', 'failed', 'cancelled'],
  generating: ['evaluating', 'failed', 'cancelled'],
  evaluating: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function isBenchStatus(value: unknown): value is BenchStatus {
  return typeof value === 'string' && (BENCH_STATUSES as readonly string[]).includes(value);
}

export function isTerminalBenchStatus(status: BenchStatus): boolean {
  return TERMINAL_BENCH_STATUSES.includes(status);
}

export function canTransition(from: BenchStatus, to: BenchStatus): boolean {
  return BENCH_TRANSITIONS[from].includes(to);
}

export type TransitionCheck = { ok: true } | { ok: false; reason: string };

/** Checks one move and explains a refusal in words fit for an error `detail`. */
export function checkTransition(from: BenchStatus, to: BenchStatus): TransitionCheck {
  if (canTransition(from, to)) return { ok: true };
  if (isTerminalBenchStatus(from)) {
    return { ok: false, reason: `the run is already ${from}; a finished run cannot become ${to}` };
  }
  return { ok: false, reason: `a ${from} run cannot become ${to}` };
}

/** Delete is allowed only for finished runs; an active run must be cancelled first. */
export function checkDelete(status: BenchStatus): TransitionCheck {
  if (isTerminalBenchStatus(status)) return { ok: true };
  return {
    ok: false,
    reason: `the run is ${status}; cancel it (POST /api/v1/bench/{id}/cancel) before deleting it`,
  };
}
