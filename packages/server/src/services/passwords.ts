/**
 * Password hashing with scrypt from `node:crypto` (RFC 7914, memory-hard): no native add-on and
 * no package to keep up to date, and the same function on every platform Node runs on. Each hash
 * is stored as `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<key b64url>`, so the cost can be raised
 * later without invalidating older hashes (`needsRehash`). The default, N = 2^16, r = 8, p = 1,
 * takes 64 MiB and ~0.1-0.2 s of one core per check; the check runs on libuv's thread pool, never
 * on the event loop. Comparison is constant-time.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export interface ScryptCost {
  logN: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT_COST: ScryptCost = { logN: 16, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const N = 2 ** cost.logN;
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** A problem with a new password, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH)
    return `the password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH)
    return `the password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

export async function hashPassword(
  password: string,
  cost: ScryptCost = DEFAULT_SCRYPT_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.logN, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

const HASH_SHAPE = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** A stored hash of a password nobody knows: checks of unknown accounts cost the same as real ones. */
let decoy: Promise<string> | undefined;

/**
 * True when `password` matches `stored`. A null `stored` (unknown account, no password) still
 * spends one hash's time against a decoy and answers false, so timing does not tell them apart.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const target = stored ?? (await (decoy ??= hashPassword(randomBytes(24).toString('base64url'))));
  const m = HASH_SHAPE.exec(target);
  if (!m) return false;
  const cost = { logN: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const expected = Buffer.from(m[5]!, 'base64url');
  const key = await derive(password.slice(0, PASSWORD_MAX_LENGTH * 4), Buffer.from(m[4]!, 'base64url'), cost);
  return key.length === expected.length && timingSafeEqual(key, expected) && stored !== null;
}
