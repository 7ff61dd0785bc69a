/**
 * The dimension listing `Engine.dimensions()` answers, made once and shared while nothing it
 * reads can have changed. The server asks for it on every read of a Bench run, Score clip or
 * Rank leaderboard, and making it asks the model store about each model-backed method (~27
 * questions: 60–150 µs per listing, more than the rest of such a read).
 *
 * It is made again as soon as
 * - the model store's installed state changes (every install or removal through a store, this
 *   process's or another's, renames its lock file: `ModelStore.installedStamp`);
 * - this engine remembers or forgets a failed pull (`generation`);
 * - or `REUSE_MS` has passed: the rest of what it reads changes with time alone (remembered
 *   failures and unreachable sources expire; a local models directory may gain files), and is
 *   seen within that bound, as the store's memory of unreachable sources is re-read.
 *
 * The shared listing is frozen, so that no caller can change what the next one reads.
 */
import type { DimensionInfo } from './contract.js';

export const REUSE_MS = 250;

export interface ListingInputs {
  /** Makes the listing. */
  make(): DimensionInfo[];
  /** The model store's installed state (null when it cannot be read: nothing is reused). */
  installedStamp(): string | null;
  /** Changes whenever this engine remembers or forgets a failed pull. */
  generation(): number;
  now?: () => number;
}

export class DimensionListing {
  private kept: { listing: readonly DimensionInfo[]; stamp: string; generation: number; at: number } | null =
    null;
  private readonly now: () => number;

  constructor(private readonly inputs: ListingInputs) {
    this.now = inputs.now ?? Date.now;
  }

  current(): readonly DimensionInfo[] {
    // Read before the listing is made: a listing is never older than the state it is kept for.
    const stamp = this.inputs.installedStamp();
    const generation = this.inputs.generation();
    const at = this.now();
    const kept = this.kept;
    if (
      kept !== null &&
      stamp !== null &&
      kept.stamp === stamp &&
      kept.generation === generation &&
      at >= kept.at &&
      at - kept.at < REUSE_MS
    )
      return kept.listing;
    const listing = deepFreeze(this.inputs.make());
    this.kept = stamp === null ? null : { listing, stamp, generation, at };
    return listing;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
