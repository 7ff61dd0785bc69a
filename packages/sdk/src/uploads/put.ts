/** Sending the clip bytes to the upload URL (step 2 of the upload flow). */
import { linkedController } from '../core/abort.js';
import {
  ApiConnectionError,
  ApiTimeoutError,
  RequestAbortedError,
  UploadSourceError,
  VestaError,
} from '../core/errors.js';
import { toApiError, type FetchLike } from '../core/http.js';
import { countingStream, type PreparedUpload } from './source.js';

export interface PutRequest {
  fetch: FetchLike;
  url: string;
  method: string;
  /** Content-Type plus the headers the server asked for. Never the API key. */
  headers: Record<string, string>;
  upload: PreparedUpload;
  /** Called with the running byte count as bytes leave. */
  onBytes: (loaded: number) => void;
  signal: AbortSignal | undefined;
  /** Aborts when no byte moves (and no response arrives) for this long. */
  stallTimeoutMs: number;
  /** Whether the runtime may set Content-Length itself (Node: yes; browsers forbid it). */
  setContentLength: boolean;
}

export type PutFn = (req: PutRequest) => Promise<void>;

/**
 * The upload URL as errors show it: without its query, which carries the URL's credential (the
 * server's signed token, or an S3 presigned signature) — an error message may end up in a log.
 */
export function uploadUrlForErrors(url: string): string {
  const q = url.search(/[?#]/);
  return q === -1 ? url : url.slice(0, q);
}

/** A stall timer: `arm()` restarts it; it aborts `controller` when it fires. */
export function stallTimer(
  controller: AbortController,
  ms: number,
): { arm: () => void; stop: () => void; fired: () => boolean } {
  let fired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      fired = true;
      controller.abort();
    }, ms);
  };
  return { arm, stop: () => timer !== undefined && clearTimeout(timer), fired: () => fired };
}

/**
 * Streams the body with fetch (`duplex: 'half'`), counting bytes as fetch pulls them, so a large
 * file is never held in memory whole.
 */
export const putWithFetch: PutFn = async (req) => {
  const { controller, dispose } = linkedController(req.signal);
  const stall = stallTimer(controller, req.stallTimeoutMs);
  let loaded = 0;
  const headers = { ...req.headers };
  if (req.setContentLength && req.upload.size !== undefined)
    headers['Content-Length'] = String(req.upload.size);
  try {
    const body = countingStream(req.upload.open(), (n) => {
      loaded += n;
      stall.arm();
      req.onBytes(loaded);
    });
    stall.arm();
    const init: RequestInit & { duplex: 'half' } = {
      method: req.method,
      headers,
      body,
      duplex: 'half',
      signal: controller.signal,
    };
    const response = await req.fetch(req.url, init);
    stall.arm();
    const text = await response.text();
    if (!response.ok) throw toApiError(response, text, req.method, uploadUrlForErrors(req.url));
  } catch (err) {
    if (req.signal?.aborted) throw new RequestAbortedError(req.signal.reason);
    if (stall.fired()) throw new ApiTimeoutError(uploadUrlForErrors(req.url), req.stallTimeoutMs, 1);
    if (err instanceof VestaError) throw err;
    const sourceError = findSourceError(err);
    if (sourceError) throw sourceError;
    throw new ApiConnectionError(uploadUrlForErrors(req.url), 1, err);
  } finally {
    stall.stop();
    dispose();
  }
};

/** A read error of the source surfaces wrapped in fetch's TypeError; find it in the cause chain. */
export function findSourceError(err: unknown): UploadSourceError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UploadSourceError) return e;
  }
  return undefined;
}
