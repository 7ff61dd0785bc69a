import { describe, expect, it } from 'vitest';
import {
  BENCH_STATUSES,
  canTransition,
  checkDelete,
  checkTransition,
  isBenchStatus,
  isTerminalBenchStatus,
} from '../src/domain/bench-state.js';

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
