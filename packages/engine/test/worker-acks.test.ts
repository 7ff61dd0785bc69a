/**
 * The worker pool's flow control: a job's worker acknowledges every (maxInFlight − 1)-th frames
 * message (acks are cumulative), and the sender never waits on a message the worker will not
 * acknowledge — every maxInFlight finishes, with the frames a slow method makes it wait for.
 */
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../src/workers/pool.js';
import type { FromWorker } from '../src/workers/protocol.js';
import { TEST_CATALOG_URL, TSX_LOADER_URL, smallClipProbe } from './helpers/catalog-workers.js';

const catalogUrl = TEST_CATALOG_URL;
const tsxApi = TSX_LOADER_URL;
const probe = smallClipProbe(7);

describe('worker acknowledgements', () => {
  it.each([1, 2, 3, 4])(
    'maxInFlight %i: every frame is scored, one ack per maxInFlight − 1 messages',
    async (maxInFlight) => {
      const pool = new WorkerPool({
        size: 1,
        script: new URL('../src/workers/evaluation-worker.ts', import.meta.url),
        tsxApi,
        maxInFlight,
      });
      try {
        const job = pool.start(
          catalogUrl,
          [
            { run: 0, dimension: 'subject_consistency', method: 'test-mean-luma', output: 0 },
            { run: 1, dimension: 'aesthetic_quality', method: 'test-slow', output: 0 },
          ],
          { probe },
        );
        // The pool's worker thread, to count the acks it posts (the pool keeps it private).
        const worker = (pool as unknown as { workers: Array<{ worker: Worker }> }).workers[0]!.worker;
        const acks: number[] = [];
        worker.on('message', (m: FromWorker) => {
          if (m.type === 'ack') acks.push(m.seq);
        });
        const frames = 7;
        for (let i = 0; i < frames; i++) {
          const data = new Uint8Array(32 * 32).fill(10 * (i + 1));
          await job.send([
            {
              output: 0,
              repeat: 1,
              frame: { index: i, timeSeconds: i / 10, width: 32, height: 32, channels: 1, data },
            },
          ]);
        }
        const results = await job.finish();
        const luma = results.find((r) => r.run === 0)!;
        expect(luma.ok).toBe(true);
        if (luma.ok) {
          expect(luma.outcome.indices).toEqual([0, 1, 2, 3, 4, 5, 6]);
          expect(luma.outcome.value).toBeCloseTo(40 / 255, 12);
        }
        expect(results.find((r) => r.run === 1)!.ok).toBe(true);
        const every = Math.max(1, maxInFlight - 1);
        const expected = Array.from({ length: Math.floor(frames / every) }, (_, k) => (k + 1) * every);
        expect(acks).toEqual(expected);
      } finally {
        await pool.close();
      }
    },
  );
});
