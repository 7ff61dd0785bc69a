/**
 * An owner-scoped read (`repositories/owned.ts`) as the API answers it: the row for its owner, 404
 * for an id that does not exist, and for another user's id the error the API documents for that
 * resource (403 for runs, runners, sessions; a clip's bytes answer 404 as if it did not exist).
 */
import type { SessionKind } from '../db/schema.js';
import { AppError, conflict, forbidden } from '../errors.js';
import type { Owned, SessionRecord } from '../repositories/index.js';

export function ownRow<T>(read: Owned<T>, answers: { none: () => AppError; other: () => AppError }): T {
  if (read.kind === 'own') return read.row;
  throw read.kind === 'none' ? answers.none() : answers.other();
}

/**
 * The caller's current Score/Rank session `runId` of `kind` (read with `sessions.ownedBy`): 404 for
 * none, 403 for another user's, 409 once it was reset.
 */
export function currentSession(read: Owned<SessionRecord>, kind: SessionKind, runId: string): SessionRecord {
  const row = ownRow(read, {
    none: () => new AppError('not_found', `${kind} run ${runId} not found`),
    other: () => forbidden(`${kind} run ${runId} belongs to another user`),
  });
  if (row.active !== 1)
    throw conflict(`${kind} run ${runId} was reset; GET /api/v1/${kind} for the current run id`);
  return row;
}
