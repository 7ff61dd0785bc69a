/**
 * Picks the job queue from the database: the embedded queue on the SQLite file, the job engine
 * (pg-boss with Vesta's fair claim and leases) on PostgreSQL.
 */
import type { OpenedDatabase } from '../../db/connection.js';
import type { JobQueue } from '../../ports/job-queue.js';
import { PgBossJobQueue } from './pg-boss.js';
import { SqliteJobQueue } from './sqlite.js';

export interface JobQueueSettings {
  concurrency: number;
  /** The PostgreSQL URL (the job engine opens its own connections); null on SQLite. */
  databaseUrl: string | null;
  /** Timings (tests shorten them). */
  leaseMs?: number;
  pollMs?: number;
  /** The embedded queue's pre-#15 claim, for `bench:fairness` only (SQLite). */
  claimOrder?: 'fair' | 'fifo';
}

export async function openJobQueue(opened: OpenedDatabase, settings: JobQueueSettings): Promise<JobQueue> {
  const timings = {
    ...(settings.leaseMs === undefined ? {} : { leaseMs: settings.leaseMs }),
    ...(settings.pollMs === undefined ? {} : { pollMs: settings.pollMs }),
  };
  if (opened.dialect === 'postgres' && settings.databaseUrl) {
    if (settings.claimOrder === 'fifo') throw new Error('the fifo claim exists only in the embedded queue');
    return PgBossJobQueue.open(opened.db, {
      connectionString: settings.databaseUrl,
      concurrency: settings.concurrency,
      ...timings,
    });
  }
  return new SqliteJobQueue(opened.db, {
    concurrency: settings.concurrency,
    ...timings,
    ...(settings.claimOrder === undefined ? {} : { claimOrder: settings.claimOrder }),
  });
}
