/**
 * Which processes of the deployment are alive, for work one process claims in the database and
 * another may have to take over when that process is gone (an upload PUT cut off by `kill -9`).
 * On the embedded SQLite file one process owns the database: there is no id and nobody to ask.
 */
export interface ProcessLiveness {
  /** This process's id as recorded on what it claims; null where one process owns the database. */
  readonly id: string | null;
  /** The ids among `ids` whose process is gone (its claims may be taken over). */
  dead(ids: readonly string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

/** The embedded installation: one process, no ids, nobody else's claims. */
export const SINGLE_PROCESS: ProcessLiveness = {
  id: null,
  dead: () => Promise.resolve(new Set()),
  close: () => Promise.resolve(),
};
