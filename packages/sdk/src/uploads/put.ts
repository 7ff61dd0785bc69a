/** Sending the clip bytes to the upload URL (step 2 of the upload flow). */
import { linkedController } from '../core/abort.js';
import {
  ApiConnectionError,
  ApiTimeoutError,
  RequestAbortedError,
  UploadSourceError,
  VestaError,
  type ApiError,
} from '../core/errors.js';
import { toApiError, type FetchLike } from '../core/http.js';
import { countingStream, type CountingBody, type PreparedUpload } from './source.js';

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

/**
 * `text` with the values of `url`'s query (as sent, decoded, and JSON-escaped) replaced by `…`:
 * what a store's refusal may quote back of the URL's credential (S3's SignatureDoesNotMatch
 * echoes the signature and the canonical query it was given), or a low-level error of the URL.
 * Values shorter than 8 characters (an expiry in seconds) are no secret and too common to replace.
 */
export function redactQueryValues(text: string, url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return text;
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end === -1 ? undefined : end);
  const values = new Set<string>();
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq !== -1) values.add(part.slice(eq + 1));
  }
  for (const [, value] of new URLSearchParams(query)) values.add(value);
  for (const value of [...values]) values.add(JSON.stringify(value).slice(1, -1));
  let out = text;
  for (const value of [...values].sort((a, b) => b.length - a.length)) {
    if (value.length >= 8) out = out.split(value).join('…');
  }
  return out;
}

/** A failed PUT's answer as the typed error: the URL without its query, nothing of it quoted. */
export function putRefusal(response: Response, text: string, method: string, url: string): ApiError {
  return toApiError(response, text, method, uploadUrlForErrors(url), (t) => redactQueryValues(t, url));
}

/**
 * The low-level error of a failed PUT, as the cause of its ApiConnectionError: itself, unless
 * it (or an error it wraps) quotes one of the URL's query values, as fetch's "Failed to parse URL
 * from <url>" does; then a plain Error saying the same without them (the original left out).
 */
export function connectionCause(err: unknown, url: string): unknown {
  const quoted: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    quoted.push(e.message);
    const input = (e as Error & { input?: unknown }).input;
    if (typeof input === 'string') quoted.push(input);
  }
  const all = quoted.join('\n');
  if (redactQueryValues(all, url) === all) return err;
  const inner = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const clean = new Error(
    redactQueryValues(inner instanceof Error ? inner.message : String(inner), url) || 'request failed',
  );
  const code = (inner as { code?: unknown } | null)?.code;
  if (typeof code === 'string') Object.assign(clean, { code });
  return clean;
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
  let body: CountingBody | undefined;
  try {
    body = countingStream(req.upload.open(), (n) => {
      loaded += n;
      stall.arm();
      req.onBytes(loaded);
    });
    stall.arm();
    const init: RequestInit & { duplex: 'half' } = {
      method: req.method,
      headers,
      body: body.stream,
      duplex: 'half',
      signal: controller.signal,
    };
    const response = await req.fetch(req.url, init);
    stall.arm();
    const text = await response.text();
    if (!response.ok) throw putRefusal(response, text, req.method, req.url);
  } catch (err) {
    if (req.signal?.aborted) throw new RequestAbortedError(req.signal.reason);
    if (stall.fired()) throw new ApiTimeoutError(uploadUrlForErrors(req.url), req.stallTimeoutMs, 1);
    if (err instanceof VestaError) throw err;
    const sourceError = findSourceError(err);
    if (sourceError) throw sourceError;
    throw new ApiConnectionError(uploadUrlForErrors(req.url), 1, connectionCause(err, req.url));
  } finally {
    stall.stop();
    dispose();
    await body?.release();
  }
};

/** A read error of the source surfaces wrapped in fetch's TypeError; find it in the cause chain. */
export function findSourceError(err: unknown): UploadSourceError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UploadSourceError) return e;
  }
  return undefined;
}
