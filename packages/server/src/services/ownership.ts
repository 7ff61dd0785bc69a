/**
 * An owner-scoped read (`repositories/owned.ts`) as the API answers it: the row for its owner, 404
 * for an id that does not exist, and for another user's id the error the API documents for that
 * resource (403 for runs, runners, sessions; a clip's bytes answer 404 as if it did not exist).
 */
import type { AppError } from '../errors.js';
import type { Owned } from '../repositories/index.js';

export function ownRow<T>(read: Owned<T>, answers: { none: () => AppError; other: () => AppError }): T {
  if (read.kind === 'own') return read.row;
  throw read.kind === 'none' ? answers.none() : answers.other();
}
