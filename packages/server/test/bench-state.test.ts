import { describe, expect, it } from 'vitest';
import {
  BENCH_STATUSES,
  canTransition,
  checkDelete,
  checkTransition,
  isBenchStatus,
  isTerminalBenchStatus,
} from '../src/domain/bench-state.js';
import type { BenchStatus } from '../src/domain/bench-state.js';
import { advanceOf, finishMove, moveLine } from '../src/domain/bench-advance.js';
import type { RunCounters } from '../src/domain/bench-advance.js';
import { BENCH_TASK_STATES } from '../src/domain/clip-lifecycle.js';
import type { BenchTaskState } from '../src/domain/clip-lifecycle.js';

// The documented machine, written out independently of the module's table.
const LEGAL = new Set([
  'queued>generating',
  'queued>failed',
  'queued>cancelled',
  'generating>evaluating',
  'generating>failed',
  'generating>cancelled',
  'evaluating>completed',
  'evaluating>failed',
  'evaluating>cancelled',
]);

describe('bench run state machine', () => {
  it('allows exactly the documented transitions among all 36 pairs', () => {
    for (const from of BENCH_STATUSES) {
      for (const to of BENCH_STATUSES) {
        expect(canTransition(from, to), `${from} -> ${to}`).toBe(LEGAL.has(`${from}>${to}`));
      }
    }
  });

  it('refuses to leave a terminal state and says why', () => {
    const check = checkTransition('completed', 'cancelled');
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toMatch(/already completed/);
    expect(checkTransition('queued', 'completed')).toEqual({
      ok: false,
      reason: 'a queued run cannot become completed',
    });
    expect(checkTransition('generating', 'cancelled')).toEqual({ ok: true });
  });

  it('allows delete only of finished runs', () => {
    expect(checkDelete('completed').ok).toBe(true);
    expect(checkDelete('failed').ok).toBe(true);
    expect(checkDelete('cancelled').ok).toBe(true);
    for (const active of ['queued', 'generating', 'evaluating'] as const) {
      const check = checkDelete(active);
      expect(check.ok).toBe(false);
      expect(check.ok ? '' : check.reason).toMatch(/cancel it/);
    }
  });

  it('recognises statuses and terminal ones', () => {
    expect(isBenchStatus('evaluating')).toBe(true);
    expect(isBenchStatus('running')).toBe(false);
    expect(BENCH_STATUSES.filter(isTerminalBenchStatus)).toEqual(['completed', 'failed', 'cancelled']);
  });
});

describe('a run moving on from its counters (domain/bench-advance)', () => {
  const counters = (status: BenchStatus, n: Partial<Record<BenchTaskState, number>> = {}) =>
    ({
      status,
      ...Object.fromEntries(BENCH_TASK_STATES.map((s) => [`n_${s}`, n[s] ?? 0])),
    }) as RunCounters;

  it('waits while a task is pending or leased, and never moves a finished run', () => {
    expect(advanceOf(counters('generating', { claimed: 1, evaluating: 3 }))).toEqual({
      moves: [],
      finish: false,
    });
    expect(advanceOf(counters('queued', { pending: 2 }))).toEqual({ moves: [], finish: false });
    for (const status of ['completed', 'failed', 'cancelled'] as const)
      expect(advanceOf(counters(status))).toEqual({ moves: [], finish: false });
  });

  it('moves to evaluating once every clip is generated, through generating from queued', () => {
    expect(advanceOf(counters('generating', { evaluating: 2, done: 1, failed: 1 }))).toEqual({
      moves: [
        { from: 'generating', to: 'evaluating', message: 'every clip generated (3 accepted, 1 failed)' },
      ],
      finish: false,
    });
    const fromQueued = advanceOf(counters('queued', { failed: 2 }));
    expect(fromQueued.moves.map((m) => `${m.from}>${m.to}`)).toEqual([
      'queued>generating',
      'generating>evaluating',
    ]);
    expect(fromQueued.finish).toBe(true);
    expect(advanceOf(counters('evaluating', { uploaded: 1 }))).toEqual({ moves: [], finish: false });
    expect(advanceOf(counters('evaluating', { done: 4 }))).toEqual({ moves: [], finish: true });
  });

  it('completes when every dimension has a scored clip, else fails with no_scored_clips', () => {
    const run = { ...counters('evaluating', { done: 3, failed: 1 }), id: 'bench_x' };
    const completed = finishMove(run, ['a', 'b'], new Set(['a', 'b', 'c']));
    expect(completed).toEqual({
      from: 'evaluating',
      to: 'completed',
      message: '3 clip(s) evaluated, 1 clip(s) failed',
    });
    expect(moveLine(completed)).toEqual({
      level: 'info',
      message: 'evaluating → completed: 3 clip(s) evaluated, 1 clip(s) failed',
    });
    const failed = finishMove(run, ['a', 'b'], new Set(['a']));
    expect(failed.to).toBe('failed');
    expect(failed.error?.code).toBe('no_scored_clips');
    expect(failed.error?.detail).toBe(
      'no clip could be scored for b (3 clip(s) evaluated, 1 clip(s) failed to generate); see GET /api/v1/bench/bench_x/videos and /logs',
    );
    expect(moveLine(failed).level).toBe('error');
    expect(moveLine(failed).message).toMatch(
      /^evaluating → failed \(no_scored_clips: no clip could be scored for b/,
    );
  });
});
