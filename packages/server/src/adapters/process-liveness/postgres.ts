/**
 * ProcessLiveness on PostgreSQL session-level advisory locks. Each process holds one advisory lock
 * (key pair: Vesta's namespace, a random positive 31-bit id) on a dedicated connection for its
 * whole life; PostgreSQL releases it when that session ends, which a `kill -9` of the process (its
 * socket closes) or a lost machine (TCP keepalive) brings about. A process whose lock is not held
 * any more is gone: `dead` reads `pg_locks`, which every role can read.
 *
 * The connection reconnects after a loss with back-off and takes the same lock again; meanwhile
 * this process counts as gone, so a client retrying one of its uploads may take it over (the upload
 * service fences its writes on the claim, so the row stays right either way).
 */
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../db/connection.js';
import type { ProcessLiveness } from '../../ports/process-liveness.js';

/** The first key of every Vesta process lock ('VEST'); the second is the process id. */
export const PROCESS_LOCK_NAMESPACE = 0x56455354;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;

export class PostgresProcessLiveness implements ProcessLiveness {
  private client: pg.Client | null = null;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private backoffMs = RECONNECT_MIN_MS;

  private constructor(
    private readonly connectionString: string,
    private readonly db: Db,
    private key: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  get id(): string {
    return String(this.key);
  }

  /** Takes this process's lock (the first attempt must succeed: the database is up at start). */
  static async open(
    connectionString: string,
    db: Db,
    onError: (err: unknown) => void = () => undefined,
  ): Promise<PostgresProcessLiveness> {
    const liveness = new PostgresProcessLiveness(connectionString, db, randomKey(), onError);
    await liveness.connect(true);
    return liveness;
  }

  private async connect(first: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('the process-lock connection ended')));
    await client.connect();
    for (let attempt = 0; ; attempt++) {
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
        PROCESS_LOCK_NAMESPACE,
        this.key,
      ]);
      if (rows[0]?.ok) break;
      // Another live process drew the same id (or, after a reconnect, took ours): draw anew.
      if (!first && attempt === 0) this.onError(new Error(`process lock ${this.key} is held elsewhere`));
      if (attempt > 10) throw new Error('could not take a process lock');
      this.key = randomKey();
    }
    this.client = client;
    this.backoffMs = RECONNECT_MIN_MS;
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.onError(err);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect(false).catch((e: unknown) => {
        this.onError(e);
        this.backoffMs = Math.min(RECONNECT_MAX_MS, this.backoffMs * 2);
        this.schedule();
      });
    }, this.backoffMs);
    this.timer.unref();
  }

  async dead(ids: readonly string[]): Promise<Set<string>> {
    const keys = [...new Set(ids)].filter((id) => /^[0-9]{1,10}$/.test(id));
    if (keys.length === 0) return new Set();
    const { rows } = await sql<{ id: string }>`
      select l.objid::text as id from pg_locks l
      where l.locktype = 'advisory' and l.granted and l.objsubid = 2
        and l.database = (select oid from pg_database where datname = current_database())
        and l.classid = ${String(PROCESS_LOCK_NAMESPACE)}::oid
        and l.objid = any(${keys}::oid[])`.execute(this.db);
    const alive = new Set(rows.map((r) => r.id));
    return new Set(keys.filter((k) => !alive.has(k)));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    // Ending the session releases the lock.
    await client?.end().catch(() => undefined);
  }
}

function randomKey(): number {
  return randomInt(1, 2 ** 31 - 1);
}
