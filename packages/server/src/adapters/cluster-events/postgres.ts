/**
 * ClusterEvents on PostgreSQL LISTEN/NOTIFY. Publishing is `pg_notify` through the pool; receiving
 * is one dedicated connection per process that LISTENs on the installation's channels. Channels
 * are named after the database schema, so two installations (or two test schemas) in one database
 * do not hear each other. A process ignores the echo of its own messages.
 *
 * The listening connection reconnects after a loss (PostgreSQL restart, network) with back-off up
 * to 5 s; once back it tells `onResync` listeners, since messages sent meanwhile were lost.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../db/connection.js';
import type { ClusterEvents, ClusterListener, ClusterTopic } from '../../ports/cluster-events.js';

const TOPICS: readonly ClusterTopic[] = ['tasks', 'auth'];
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;

/** The NOTIFY channel of `topic` for the installation in `schema` (an identifier under 64 bytes). */
export function channelName(schema: string, topic: ClusterTopic): string {
  const id = /^[a-z0-9_]{1,40}$/.test(schema)
    ? schema
    : createHash('sha1').update(schema).digest('hex').slice(0, 16);
  return `vesta_${id}_${topic}`;
}

export interface PostgresClusterEventsOptions {
  /** Told about a listening connection lost or failing to reconnect (for the log). */
  onError?: (err: unknown) => void;
}

export class PostgresClusterEvents implements ClusterEvents {
  private readonly origin = randomUUID();
  private readonly listeners = new Map<ClusterTopic, Set<ClusterListener>>();
  private readonly resyncListeners = new Set<() => void>();
  private client: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private backoffMs = RECONNECT_MIN_MS;
  private everConnected = false;
  private _connected = false;

  private constructor(
    private readonly connectionString: string,
    private readonly db: Db,
    private readonly channels: ReadonlyMap<ClusterTopic, string>,
    private readonly options: PostgresClusterEventsOptions,
  ) {}

  /** Connects the listening connection (the first attempt must succeed: the database is up at start). */
  static async open(
    connectionString: string,
    db: Db,
    options: PostgresClusterEventsOptions = {},
  ): Promise<PostgresClusterEvents> {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema ?? 'public';
    const channels = new Map(TOPICS.map((t) => [t, channelName(schema, t)] as const));
    const events = new PostgresClusterEvents(connectionString, db, channels, options);
    await events.connect();
    return events;
  }

  /** A publisher only (no listening connection): `vesta admin` telling the servers of a revocation. */
  static async publisher(db: Db): Promise<PostgresClusterEvents> {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema ?? 'public';
    const channels = new Map(TOPICS.map((t) => [t, channelName(schema, t)] as const));
    const events = new PostgresClusterEvents('', db, channels, {});
    events.closed = true;
    return events;
  }

  get connected(): boolean {
    return this._connected;
  }

  async publish(topic: ClusterTopic, message: string): Promise<void> {
    const channel = this.channels.get(topic)!;
    await sql`select pg_notify(${channel}, ${`${this.origin} ${message}`})`.execute(this.db);
  }

  subscribe(topic: ClusterTopic, listener: ClusterListener): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this._connected = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    const lost = (err?: unknown): void => {
      if (this.client !== client) return;
      this.client = null;
      this._connected = false;
      if (err !== undefined) this.options.onError?.(err);
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      const topic = [...this.channels].find(([, c]) => c === n.channel)?.[0];
      const payload = n.payload ?? '';
      const space = payload.indexOf(' ');
      if (topic === undefined || space < 0 || payload.slice(0, space) === this.origin) return;
      const message = payload.slice(space + 1);
      for (const l of [...(this.listeners.get(topic) ?? [])]) {
        try {
          l(message);
        } catch (e) {
          this.options.onError?.(e);
        }
      }
    });
    try {
      await client.connect();
      for (const channel of this.channels.values())
        await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (e) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw e;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this._connected = true;
    this.backoffMs = RECONNECT_MIN_MS;
    if (this.everConnected) for (const l of [...this.resyncListeners]) l();
    this.everConnected = true;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(RECONNECT_MAX_MS, this.backoffMs * 2);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.closed) return;
      this.connect().catch((e: unknown) => {
        this.options.onError?.(e);
        this.scheduleReconnect();
      });
    }, delay);
    this.reconnectTimer.unref();
  }
}
