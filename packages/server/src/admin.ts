/**
 * Operator functions run on the server's host (`vesta admin`): they open the data directory's
 * database directly, so they work whether or not the service is running.
 */
import { openDatabase } from './db/connection.js';
import { ApiKeyService } from './services/api-key-service.js';
import type { CreatedKey } from './services/api-key-service.js';

/** Creates an API key for `userName` (creating the user if needed). The key is returned once. */
export async function createApiKey(dataDir: string, userName: string): Promise<CreatedKey> {
  const opened = await openDatabase(dataDir);
  try {
    return await new ApiKeyService(opened.db).createKey(userName);
  } finally {
    await opened.close();
  }
}

/** Revokes the key whose display prefix is `prefix`; false when no active key has it. */
export async function revokeApiKey(dataDir: string, prefix: string): Promise<boolean> {
  const opened = await openDatabase(dataDir);
  try {
    return await new ApiKeyService(opened.db).revokeKey(prefix);
  } finally {
    await opened.close();
  }
}
