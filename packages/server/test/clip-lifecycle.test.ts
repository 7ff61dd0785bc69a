import { describe, expect, it } from 'vitest';
import {
  BENCH_TASK_STATES,
  TASK_MOVES,
  VIDEO_MOVES,
  VIDEO_STATES,
  canTaskTransition,
  canVideoTransition,
} from '../src/domain/clip-lifecycle.js';

// The documented machines (docs/architecture.md, the clip lifecycle), written out independently
// of the module's tables.
const VIDEO_LEGAL = new Set([
  'awaiting_upload>uploaded',
  'uploaded>queued',
  'uploaded>failed',
  'queued>scoring',
  'queued>failed',
  'scoring>scoring',
  'scoring>queued',
  'scoring>scored',
  'scoring>failed',
]);
const TASK_LEGAL = new Set([
  'pending>claimed',
  'pending>cancelled',
  'claimed>pending',
  'claimed>evaluating',
  'claimed>failed',
  'claimed>cancelled',
  'uploaded>done',
  'uploaded>cancelled',
  'evaluating>done',
  'evaluating>cancelled',
]);

describe('clip lifecycle', () => {
  it('a video allows exactly the documented transitions', () => {
    for (const from of VIDEO_STATES)
      for (const to of VIDEO_STATES)
        expect(canVideoTransition(from, to), `${from} -> ${to}`).toBe(VIDEO_LEGAL.has(`${from}>${to}`));
  });

  it('a Bench task allows exactly the documented transitions', () => {
    for (const from of BENCH_TASK_STATES)
      for (const to of BENCH_TASK_STATES)
        expect(canTaskTransition(from, to), `${from} -> ${to}`).toBe(TASK_LEGAL.has(`${from}>${to}`));
  });

  it('every named move is a set of legal transitions, and every legal transition has a move', () => {
    const videoPairs = new Set<string>();
    for (const [name, move] of Object.entries(VIDEO_MOVES))
      for (const from of move.from)
        for (const to of move.to) {
          expect(canVideoTransition(from, to), `video move ${name}: ${from} -> ${to}`).toBe(true);
          videoPairs.add(`${from}>${to}`);
        }
    expect([...VIDEO_LEGAL].filter((p) => !videoPairs.has(p))).toEqual([]);
    const taskPairs = new Set<string>();
    for (const [name, move] of Object.entries(TASK_MOVES))
      for (const from of move.from)
        for (const to of move.to) {
          expect(canTaskTransition(from, to), `task move ${name}: ${from} -> ${to}`).toBe(true);
          taskPairs.add(`${from}>${to}`);
        }
    // `uploaded` is entered by no move any more (older servers wrote it); everything else is.
    expect([...TASK_LEGAL].filter((p) => !taskPairs.has(p))).toEqual([]);
  });

  it('terminal states have no way out', () => {
    for (const s of ['scored', 'failed'] as const)
      for (const to of VIDEO_STATES) expect(canVideoTransition(s, to)).toBe(false);
    for (const s of ['done', 'failed', 'cancelled'] as const)
      for (const to of BENCH_TASK_STATES) expect(canTaskTransition(s, to)).toBe(false);
  });
});
