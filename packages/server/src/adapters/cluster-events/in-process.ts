/**
 * ClusterEvents of an installation that is one process (the embedded SQLite file, which one
 * process holds): there is no other process to tell, so publishing does nothing.
 */
import type { ClusterEvents } from '../../ports/cluster-events.js';

export class InProcessClusterEvents implements ClusterEvents {
  readonly connected = true;

  publish(): Promise<void> {
    return Promise.resolve();
  }

  subscribe(): () => void {
    return () => undefined;
  }

  onResync(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
