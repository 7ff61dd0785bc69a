/**
 * Operator functions run on the server's host (`vesta admin`): they open the service's database
 * directly — PostgreSQL when VESTA_DATABASE_URL names one, else the data directory's SQLite file —
 * so they work whether or not the service is running. `target` is a DatabaseTarget, or a data
 * directory for the embedded file.
 */
import { openDatabase } from './db/connection.js';
import type { OpenedDatabase } from './db/connection.js';
import { PostgresClusterEvents } from './adapters/cluster-events/postgres.js';
import { randomBytes } from 'node:crypto';
import type { UserRole } from './db/schema.js';
import { AppError } from './errors.js';
import type { UserView } from './domain/views/accounts.js';
import type { DatabaseTarget } from './db/connection.js';
import { ApiKeyService } from './services/api-key.service.js';
import type { CreatedKey } from './services/api-key.service.js';
import { Repositories } from './repositories/index.js';
import { ModelService } from './services/model.service.js';
import { UserAdminService } from './services/user-admin.service.js';

/** Creates an API key for `userName` (creating the user if needed). The key is returned once. */
export async function createApiKey(target: string | DatabaseTarget, userName: string): Promise<CreatedKey> {
  const opened = await openDatabase(target);
  try {
    return await new ApiKeyService(new Repositories(opened.db)).createKey(userName);
  } finally {
    await opened.close();
  }
}

/** Revokes the key whose display prefix is `prefix`; false when no active key has it. */
export async function revokeApiKey(target: string | DatabaseTarget, prefix: string): Promise<boolean> {
  const opened = await openDatabase(target);
  try {
    return await new ApiKeyService(
      new Repositories(opened.db),
      Date.now,
      await revocationEvents(opened),
    ).revokeKey(prefix);
  } finally {
    await opened.close();
  }
}

/**
 * On PostgreSQL, a revocation made here is announced to the running API processes (their auth
 * caches forget the key at once instead of within AUTH_CACHE_TTL_MS).
 */
async function revocationEvents(opened: OpenedDatabase): Promise<{ events?: PostgresClusterEvents }> {
  return opened.dialect === 'postgres' ? { events: await PostgresClusterEvents.publisher(opened.db) } : {};
}

/** User administration on the data directory's database (invite lifetimes do not matter here). */
async function withAccounts<T>(
  target: string | DatabaseTarget,
  fn: (users: UserAdminService) => Promise<T>,
): Promise<T> {
  const opened = await openDatabase(target);
  try {
    const repos = new Repositories(opened.db);
    const keys = new ApiKeyService(repos, Date.now, await revocationEvents(opened));
    return await fn(new UserAdminService(repos, keys, { inviteTtlMs: 1 }));
  } catch (e) {
    // Catalogue errors (bad email, short password, taken email, unknown user) are the operator's input.
    if (e instanceof AppError) throw new RangeError(e.detail);
    throw e;
  } finally {
    await opened.close();
  }
}

/** A random password for an operator-made account (printed once). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Creates a dashboard account (or gives an email and password to the existing key-only user
 * `name`). Throws a RangeError naming the problem for bad input or a taken email.
 */
export function createUser(
  target: string | DatabaseTarget,
  input: { email: string; password: string; role: UserRole; name?: string },
): Promise<UserView> {
  return withAccounts(target, (accounts) => accounts.createUser(input));
}

/** Sets a new password for the account with this email and signs all its sessions out. */
export function resetPassword(
  target: string | DatabaseTarget,
  email: string,
  password: string,
): Promise<void> {
  return withAccounts(target, (accounts) => accounts.resetPassword(email, password));
}

/** Disables a user (by email, or by user name): sessions and keys revoked, sign-in refused. */
export function disableUser(
  target: string | DatabaseTarget,
  who: { email?: string; name?: string },
): Promise<{ id: string; name: string }> {
  return withAccounts(target, async (accounts) => {
    const user =
      who.email !== undefined
        ? await accounts.findByEmail(who.email)
        : await accounts.findByName(who.name ?? '');
    await accounts.disable(user.id);
    return user;
  });
}

export interface AddModelInput {
  id: string;
  name: string;
  description?: string;
}

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/**
 * Adds a model Bench runs can evaluate (or updates its name and description when the id exists).
 * Throws a RangeError naming the problem for an invalid id, name or description.
 */
export async function addModel(
  target: string | DatabaseTarget,
  input: AddModelInput,
): Promise<{ id: string; name: string; description: string; created: boolean }> {
  if (!MODEL_ID.test(input.id))
    throw new RangeError(
      `model id must be 1-128 letters, digits and . _ : / - (starting with a letter or digit); got ${JSON.stringify(input.id)}`,
    );
  const name = input.name.trim();
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (name === '' || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name))
    throw new RangeError('model name must be 1-200 characters without control characters');
  const description = (input.description ?? '').trim();
  if (description.length > 2000) throw new RangeError('model description must be at most 2000 characters');
  const opened = await openDatabase(target);
  try {
    const created = await new ModelService({ repos: new Repositories(opened.db) }).upsert({
      id: input.id,
      name,
      description,
    });
    return { id: input.id, name, description, created };
  } finally {
    await opened.close();
  }
}
