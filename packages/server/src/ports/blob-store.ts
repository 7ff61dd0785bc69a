/**
 * Where uploaded clips live. The embedded adapter is a local directory; a distributed one would be
 * S3. Writes are streaming: a caller pipes bytes into `createWriteStream` and the object appears
 * only once the stream finishes (a failed or aborted write leaves nothing behind).
 */
import type { Readable, Writable } from 'node:stream';

export interface BlobStat {
  sizeBytes: number;
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
  release(): Promise<void>;
}

export interface BlobStore {
  createWrite(key: string): Promise<BlobWrite>;
  stat(key: string): Promise<BlobStat | null>;
  /** Reads `[start, end]` inclusive, or the whole object. */
  read(key: string, range?: { start: number; end: number }): Readable;
  /** Reads the first `length` bytes (fewer if the object is shorter). */
  head(key: string, length: number): Promise<Buffer>;
  /** Makes the object available as a local file for the decoder. */
  localFile(key: string): Promise<LocalBlob>;
  delete(key: string): Promise<void>;
  /** Throws when the store cannot be written to (for /readyz). */
  checkReady(): Promise<void>;
}
