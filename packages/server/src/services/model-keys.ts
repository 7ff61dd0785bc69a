/**
 * Who may see which model (the model catalogue's tenancy rule, `docs/security.md`).
 *
 * - A **global** model (built in, or added by the operator with `vesta admin add-model`) has no
 *   owner; every user sees it. Its row key is its public id.
 * - A model id that a user's runner declares, and that is not a global model, is **private** to
 *   that user: only they see it, list it, run it or have their runners serve it. For anyone else
 *   it does not exist — the same answer as an id nobody declared — so a private id cannot be
 *   discovered or squatted: two users may each declare the same id and get a model of their own.
 *   Its row key is `@<owner user id>/<public id>`, which no public id can spell (a public id starts
 *   with a letter or digit) and which the API never shows.
 * - For a user, an id names their private model if they have one, else the global model.
 */
import type { ModelRepository } from '../repositories/index.js';

/** The row key of `ownerId`'s private model `publicId`. */
export function privateModelKey(ownerId: string, publicId: string): string {
  return `@${ownerId}/${publicId}`;
}

/** The id the API shows for a model's row key. */
export function publicModelId(rowKey: string): string {
  return rowKey.startsWith('@') ? rowKey.slice(rowKey.indexOf('/') + 1) : rowKey;
}

/**
 * The row key of the model `publicId` names for `userId` (their private model, else the global
 * one), or undefined when it names none they may see.
 */
export async function resolveModelKey(
  models: ModelRepository,
  userId: string,
  publicId: string,
): Promise<string | undefined> {
  const rows = await models.candidates(userId, publicId);
  return (rows.find((r) => r.owner_id === userId) ?? rows[0])?.id;
}
