/**
 * Upload URL tokens: an HMAC-SHA256 over (video id, content type, max bytes, expiry) with a secret
 * generated once into the data directory. The token is the PUT's credential; a changed byte in it
 * fails the signature check, and each grant has exactly one accepted spelling.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Repositories } from '../repositories/index.js';

export interface UploadGrant {
  videoId: string;
  contentType: string;
  maxBytes: number;
  /** Epoch ms. */
  expiresAt: number;
}

/** Reads `<dataDir>/upload-signing.key`, creating it (32 random bytes, mode 0600) the first time. */
export function loadOrCreateSigningSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, 'upload-signing.key');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const secret = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  if (secret.length < 32) throw new Error(`${file} does not hold a 32-byte hex secret`);
  return secret;
}

/**
 * The upload-signing secret kept in the database (`service_secrets`), created by whichever
 * process starts first: with PostgreSQL every API process of a deployment shares it, so an upload
 * URL minted by one verifies in any other.
 */
export async function loadOrCreateSharedSigningSecret(repos: Repositories): Promise<Buffer> {
  const value = await repos.secrets.getOrCreate(
    'upload-signing',
    randomBytes(32).toString('hex'),
    Date.now(),
  );
  const secret = Buffer.from(value, 'hex');
  if (secret.length < 32)
    throw new Error('service_secrets.upload-signing does not hold a 32-byte hex secret');
  return secret;
}

/** The deployment's signing secret: the data directory's file, or the database's with PostgreSQL. */
export async function loadUploadSigningSecret(
  config: { dataDir: string; databaseUrl: string | null },
  repos: Repositories,
): Promise<Buffer> {
  return config.databaseUrl === null
    ? loadOrCreateSigningSecret(config.dataDir)
    : loadOrCreateSharedSigningSecret(repos);
}

export class UploadTokenSigner {
  constructor(private readonly secret: Buffer) {}

  sign(grant: UploadGrant): string {
    const body = Buffer.from(
      JSON.stringify([grant.videoId, grant.contentType, grant.maxBytes, grant.expiresAt]),
      'utf8',
    ).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The grant a token carries, or null when it is malformed or its signature does not match. */
  verify(token: string): UploadGrant | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 2048) return null;
    const body = token.slice(0, dot);
    // The signature is compared as text, not as decoded bytes: base64url decoding ignores the unused
    // low bits of the last character, so a byte comparison would accept several spellings of one
    // token. Exactly the spelling `sign` produced is accepted. (The body is signed as text already.)
    const mac = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.mac(body), 'utf8');
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return null;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      if (!Array.isArray(parsed) || parsed.length !== 4) return null;
      const [videoId, contentType, maxBytes, expiresAt] = parsed as unknown[];
      if (
        typeof videoId !== 'string' ||
        typeof contentType !== 'string' ||
        typeof maxBytes !== 'number' ||
        typeof expiresAt !== 'number'
      )
        return null;
      return { videoId, contentType, maxBytes, expiresAt };
    } catch {
      return null;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
