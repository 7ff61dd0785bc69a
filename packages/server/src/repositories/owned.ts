/**
 * An owner-scoped read: what a repository method that reads a user's resource answers. The row
 * comes back only to its owner; anyone else learns only that it exists (`other`: the API answers
 * 403 where it documents so) or nothing (`none`: 404). A service cannot forget the owner check: it
 * never holds another user's row.
 */
export type Owned<T> = { kind: 'own'; row: T } | { kind: 'other' } | { kind: 'none' };

/** `row` as `owner` may see it; `ownerOf` names the row's owner. */
export function ownedRead<T>(row: T | undefined, ownerOf: (row: T) => string, owner: string): Owned<T> {
  if (row === undefined) return { kind: 'none' };
  return ownerOf(row) === owner ? { kind: 'own', row } : { kind: 'other' };
}
