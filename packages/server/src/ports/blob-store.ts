/**
 * Where uploaded clips live. The embedded adapter is a local directory; the distributed one is an
 * S3-compatible bucket. Each adapter mints the URL a client uploads a clip to: the local directory
 * signs a URL to the service's own `PUT /api/v1/uploads/{videoId}` route (the bytes stream through
 * `createWrite`), S3 presigns a `PUT` straight to the bucket (the bytes never pass the API).
 * Writes are streaming: a caller pipes bytes into `createWrite`'s stream and the object appears
 * only once it is committed (a failed or aborted write leaves nothing behind).
 *
 * Failures of the store itself (unreachable, refusing, full) are thrown as errors that
 * `isUpstreamFailure` recognises, so that callers answer 503 `upstream_unavailable`.
 */
import type { Readable, Writable } from 'node:stream';

export interface BlobStat {
  sizeBytes: number;
  /**
   * Identifies this version of the object (S3's ETag; null where the store has none). A reader that
   * passes it to `localFile` gets exactly the bytes that were checked, or an error.
   */
  version: string | null;
}

export interface BlobWrite {
  /** Pipe the bytes in; it finishes once they are durable. */
  stream: Writable;
  /** Makes the written bytes visible under the key; call after the stream finished. */
  commit(): Promise<void>;
  /** Throws the partial bytes away (safe after errors, idempotent). */
  abort(): Promise<void>;
}

export interface LocalBlob {
  /** A path on this machine that the engine can read. */
  path: string;
  /** Frees the local copy (a temporary file is deleted); idempotent. */
  release(): Promise<void>;
}

/** What an upload URL allows: one object, of one media type, up to a size, until a time. */
export interface UploadGrant {
  key: string;
  videoId: string;
  contentType: string;
  /** Largest accepted body. */
  maxBytes: number;
  /** The exact size the client declared, when it did (S3 binds it into the signature). */
  sizeBytes: number | null;
  /** Epoch ms. */
  expiresAt: number;
  /**
   * The base URL the client reaches this service at (VESTA_PUBLIC_URL, or the origin its request
   * came to): where a store whose uploads go through the service's own route points the URL. Called
   * only by such a store; one that presigns URLs on its own endpoint (S3) never asks.
   */
  serviceBase: () => string;
}

/**
 * Signs the ticket of an upload that goes through the service's own `PUT /api/v1/uploads/{videoId}`
 * route (the local directory's upload URL): the token the route later verifies.
 */
export interface UploadTicketSigner {
  sign(ticket: { videoId: string; contentType: string; maxBytes: number; expiresAt: number }): string;
}

/** Where and how a client sends the bytes. */
export interface UploadTarget {
  url: string;
  /** Headers the PUT must carry exactly (they are part of the signature where the store signs them). */
  headers: Record<string, string>;
  /** Largest body the PUT accepts (the declared size where it is bound). */
  maxBytes: number;
}

export interface BlobStore {
  /** Which adapter this is (`local` or `s3`), for logs and readiness only: no service branches on it. */
  readonly kind: string;
  /** Mints the URL a client `PUT`s the object's bytes to. */
  uploadTarget(grant: UploadGrant): Promise<UploadTarget>;
  /**
   * The origin of the upload URLs this store mints on its own endpoint (S3's bucket), which a web
   * page must be allowed to send to; null where uploads go through the service's own route.
   */
  directUploadOrigin(): Promise<string | null>;
  createWrite(key: string): Promise<BlobWrite>;
  stat(key: string): Promise<BlobStat | null>;
  /** Reads `[start, end]` inclusive, or the whole object. */
  read(key: string, range?: { start: number; end: number }): Readable;
  /** Reads the first `length` bytes (fewer if the object is shorter). */
  head(key: string, length: number): Promise<Buffer>;
  /**
   * Makes the object available as a local file for the decoder (S3: streamed into a temporary
   * file, deleted on `release`, and on failure or abort before this resolves). With `version`,
   * an object that changed since it was checked is refused.
   */
  localFile(key: string, options?: { signal?: AbortSignal; version?: string | null }): Promise<LocalBlob>;
  delete(key: string): Promise<void>;
  /** Throws when the store cannot be written to (for /readyz). */
  checkReady(): Promise<void>;
}

/** Thrown when an object changed between its check and its read (another upload replaced it). */
export class BlobChangedError extends Error {
  override readonly name = 'BlobChangedError';
}
