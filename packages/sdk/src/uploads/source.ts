/** Upload sources: what the caller may pass to `upload()`, and how it becomes a request body. */
import { UploadSourceError } from '../core/errors.js';

/** A Node.js `Readable` (structurally, so the browser build needs no Node types at run time). */
export interface NodeReadableLike extends AsyncIterable<unknown> {
  pipe: (...args: never[]) => unknown;
  on: (...args: never[]) => unknown;
}

/** A file path (Node only), a Blob or File, a web ReadableStream, or a Node Readable stream. */
export type UploadInput = string | Blob | ReadableStream<Uint8Array> | NodeReadableLike;

/** Describes the bytes when the source does not (streams have no name or type). */
export interface UploadFileOptions {
  /** File name sent to the server; defaults to the path's base name or `File.name`. */
  fileName?: string;
  /** Media type; defaults to the Blob's type or a guess from the file name's extension. */
  contentType?: string;
  /** Byte count, when known, for progress totals (paths and Blobs know it already). */
  size?: number;
}

/** A normalised upload source. `open()` returns a fresh body; one-shot streams cannot be replayed. */
export interface PreparedUpload {
  fileName: string;
  contentType: string;
  size: number | undefined;
  replayable: boolean;
  open(): Blob | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
}

const mediaTypes: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  mpg: 'video/mpeg',
  mpeg: 'video/mpeg',
  ogv: 'video/ogg',
  gif: 'image/gif',
  txt: 'text/plain',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
};

/** Media type from a file name's extension (`application/octet-stream` when unknown). */
export function guessContentType(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const ext = dot >= 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  return mediaTypes[ext] ?? 'application/octet-stream';
}

export function isBlob(value: unknown): value is Blob {
  return typeof Blob !== 'undefined' && value instanceof Blob;
}

export function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && value instanceof ReadableStream;
}

export function isNodeReadable(value: unknown): value is NodeReadableLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { pipe?: unknown }).pipe === 'function' &&
    typeof (value as { on?: unknown }).on === 'function' &&
    Symbol.asyncIterator in value
  );
}

/** Prepares every source except a path (the Node entry handles paths). */
export function prepareInMemorySource(input: UploadInput, opts: UploadFileOptions): PreparedUpload {
  if (isBlob(input)) {
    const name =
      opts.fileName ?? (typeof File !== 'undefined' && input instanceof File ? input.name : undefined);
    if (!name) throw new UploadSourceError('A Blob upload needs { fileName } (a File carries its own name).');
    return {
      fileName: name,
      contentType: opts.contentType ?? (input.type || guessContentType(name)),
      size: input.size,
      replayable: true,
      open: () => input,
    };
  }
  if (isWebStream(input) || isNodeReadable(input)) {
    if (!opts.fileName)
      throw new UploadSourceError('A stream upload needs { fileName } (and ideally { contentType, size }).');
    let used = false;
    return {
      fileName: opts.fileName,
      contentType: opts.contentType ?? guessContentType(opts.fileName),
      size: opts.size,
      replayable: false,
      open: () => {
        if (used) throw new UploadSourceError('A stream can be sent only once.');
        used = true;
        return input as ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
      },
    };
  }
  if (typeof input === 'string')
    throw new UploadSourceError(
      'File paths can be uploaded only from Node.js; in a browser pass a File or Blob.',
    );
  throw new UploadSourceError(
    'Unsupported upload source: pass a file path (Node), a Blob/File, or a readable stream.',
  );
}

/** A counting body and the way to let go of its source when the request ends early. */
export interface CountingBody {
  stream: ReadableStream<Uint8Array>;
  /**
   * Closes the source unless it was read to its end: a request that failed before (or while)
   * reading it — connection refused, a refusal, an abort — must not leave a file open.
   */
  release(): Promise<void>;
}

/**
 * Wraps a body source into a web ReadableStream that reports every chunk to `onChunk` as it is
 * pulled by fetch (pull-based: nothing is buffered ahead of the network).
 */
export function countingStream(
  source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | Blob,
  onChunk: (bytes: number) => void,
): CountingBody {
  const stream = isBlob(source) ? source.stream() : source;
  let ended = false;
  if (isWebStream(stream)) {
    const reader = stream.getReader();
    return {
      stream: new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const { value, done } = await readOrFail(() => reader.read());
            if (done) {
              ended = true;
              controller.close();
              return;
            }
            onChunk(value.byteLength);
            controller.enqueue(value);
          },
          cancel(reason) {
            ended = true;
            return reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      ),
      async release() {
        if (ended) return;
        ended = true;
        await reader.cancel().catch(() => undefined);
      },
    };
  }
  const iterator = stream[Symbol.asyncIterator]();
  return {
    stream: new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const result: IteratorResult<unknown, unknown> = await readOrFail(() => iterator.next());
          if (result.done) {
            ended = true;
            controller.close();
            return;
          }
          const chunk = toBytes(result.value);
          onChunk(chunk.byteLength);
          controller.enqueue(chunk);
        },
        async cancel() {
          ended = true;
          await iterator.return?.();
        },
      },
      { highWaterMark: 0 },
    ),
    async release() {
      if (ended) return;
      ended = true;
      // A Node stream's iterator does nothing on return() before its first next(): destroy it.
      const destroy = (stream as { destroy?: unknown }).destroy;
      if (typeof destroy === 'function') destroy.call(stream);
      else await Promise.resolve(iterator.return?.()).catch(() => undefined);
    },
  };
}

async function readOrFail<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw new UploadSourceError(
      `Reading the upload source failed: ${err instanceof Error ? err.message : String(err)}`,
      err,
    );
  }
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new UploadSourceError('Stream chunks must be bytes (Uint8Array/Buffer) or strings.');
}
