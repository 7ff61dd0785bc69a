/**
 * The rules accounts share: how an email is normalised, what a password must be, how a new
 * account's user name is chosen, and how tokens are hashed for storage.
 */
import { createHash } from 'node:crypto';
import { validationFailed } from '../errors.js';
import type { UserRepository } from '../repositories/index.js';
import { passwordProblem } from './passwords.js';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

/** SHA-256 (hex) of a token: what is stored of a session cookie or an invite link. */
export const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
export const iso = (ms: number | null): string | null =>
  ms === null ? null : new Date(Number(ms)).toISOString();

export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email)) throw validationFailed('email must look like name@example.com');
  return email;
}

export function requirePassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw validationFailed(problem);
}

/** A user name for a new account: the email, or its local part with a suffix when taken. */
export async function freeUserName(
  users: UserRepository,
  email: string,
  wanted: string | undefined,
): Promise<string> {
  const base = (wanted?.trim() || email).slice(0, 64);
  for (let i = 0; ; i++) {
    const name = i === 0 ? base : `${base.slice(0, 58)}-${i}`;
    if (!(await users.nameTaken(name))) return name;
  }
}
