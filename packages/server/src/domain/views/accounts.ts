/**
 * What the account and API-key services return: dashboard accounts, web sessions, users, invites
 * and keys. Checked against `http/routes/accounts/schemas.ts` at compile time.
 */
import type { UserRole } from '../../db/schema.js';

export type { UserRole };

/** The user an API key authenticates. */
export interface AuthenticatedUser {
  id: string;
  name: string;
}

/** A signed-in dashboard account. */
export interface Account {
  id: string;
  name: string;
  email: string;
  role: UserRole;
}

export interface WebSessionView {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

export interface UserView {
  id: string;
  name: string;
  email: string | null;
  role: UserRole;
  createdAt: string;
  disabledAt: string | null;
}

export interface InviteView {
  id: string;
  email: string;
  role: UserRole;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
}

export interface ApiKeyView {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  /** True once `expiresAt` has passed (the key answers 401). */
  expired: boolean;
}
