/**
 * Messages between the processes of one Vesta installation: "a generation task may be claimable"
 * (wakes runner long-polls on every API process) and "this API key or user was revoked" (drops it
 * from every process's auth cache). Delivery is best effort and fast (milliseconds); every use has
 * a bounded fallback for a message lost while a connection was down (a long-poll's own timeout,
 * the auth cache's TTL), so nothing depends on it for correctness, only for latency.
 *
 * Adapters: in-process (SQLite: one process holds the file) and PostgreSQL LISTEN/NOTIFY.
 */
export type ClusterTopic =
  /** A generation task may have become claimable (message unused). */
  | 'tasks'
  /** `key:<display prefix>` or `user:<id>`: forget cached authentications of it. */
  | 'auth';

export type ClusterListener = (message: string) => void;

export interface ClusterEvents {
  /**
   * Sends `message` on `topic` to every other process of the installation (this process acts on
   * its own change itself, at once). Rejects when the message could not be sent.
   */
  publish(topic: ClusterTopic, message: string): Promise<void>;
  /** Calls `listener` for each message on `topic`; returns the unsubscribe function. */
  subscribe(topic: ClusterTopic, listener: ClusterListener): () => void;
  /**
   * Called after a gap in delivery (the listening connection was lost and is back): messages may
   * have been missed, so listeners should re-check what they wait for.
   */
  onResync(listener: () => void): () => void;
  /** Whether messages from other processes are being received now (a gauge on /metrics). */
  readonly connected: boolean;
  close(): Promise<void>;
}
