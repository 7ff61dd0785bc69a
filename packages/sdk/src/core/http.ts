/**
 * The request core: one place that adds headers, applies the timeout (which covers reading the
 * body), retries with backoff, reuses one Idempotency-Key across a call's retries, and turns
 * error responses into typed errors.
 */
import { backoffDelay, defaultBackoff, parseRetryAfter, type BackoffPolicy } from './backoff.js';
import { linkedController, sleep, throwIfAborted } from './abort.js';
import {
  ApiConnectionError,
  ApiTimeoutError,
  RequestAbortedError,
  apiErrorFor,
  type ApiError,
} from './errors.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * The runtime's global fetch, called unbound: what the client uses when no `fetch` option is
 * given (so the Node upload can tell that nobody asked to see its requests).
 */
export const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

/** Per-call options accepted by every SDK method. */
export interface RequestOptions {
  /** Aborts the call, including any wait between retries. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms, covering headers and body. Defaults to the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Retries after the first attempt. Defaults to the client's `maxRetries`. */
  maxRetries?: number;
  /** Idempotency-Key for a POST; generated (UUID v4) when absent and reused across retries. */
  idempotencyKey?: string;
}

export interface HttpConfig {
  /** The API key; undefined in session mode (the dashboard's cookie authenticates instead). */
  apiKey: string | undefined;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: FetchLike;
  source: string;
  backoff?: BackoffPolicy;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** How the successful body is read. */
  responseType?: 'json' | 'text' | 'bytes';
  /** Extra request headers (e.g. `Range`). */
  headers?: Record<string, string>;
}

/** A successful response read as bytes, with its headers. */
export interface BytesResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

/**
 * Responses that are retried (besides connection errors and timeouts): 408, 429, 5xx, and a 409
 * that carries `Retry-After` (the server's answer to a duplicate request still in progress).
 */
export function isRetryable(status: number, headers: Headers): boolean {
  return status === 408 || status === 429 || status >= 500 || (status === 409 && headers.has('retry-after'));
}

export class HttpClient {
  readonly baseUrl: string;
  /** A private field: it holds the key, and util.inspect / console.log never show private fields. */
  readonly #config: HttpConfig;
  /** Session mode: the CSRF token of the signed-in session, sent on state-changing requests. */
  #csrfToken: string | undefined;

  constructor(config: HttpConfig) {
    this.#config = config;
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  /** Session mode: remembers the session's CSRF token (undefined after sign-out). */
  setCsrfToken(token: string | undefined): void {
    this.#csrfToken = token;
  }

  /** The fetch implementation, called unbound (some runtimes reject a rebound `this`). */
  get fetch(): FetchLike {
    return this.#config.fetch;
  }

  url(path: string, query?: HttpRequest['query']): string {
    let url = `${this.baseUrl}${path}`;
    if (query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query))
        if (value !== undefined) params.set(key, String(value));
      const qs = params.toString();
      if (qs) url += `?${qs}`;
    }
    return url;
  }

  async json<T>(req: HttpRequest, opts: RequestOptions = {}): Promise<T> {
    const { body: text } = await this.send({ ...req, responseType: 'json' }, opts);
    return (text === '' ? undefined : JSON.parse(text as string)) as T;
  }

  async text(req: HttpRequest, opts: RequestOptions = {}): Promise<string> {
    return (await this.send({ ...req, responseType: 'text' }, opts)).body as string;
  }

  /** The body as bytes (binary content such as a clip), with the status and headers. */
  async bytes(req: HttpRequest, opts: RequestOptions = {}): Promise<BytesResponse> {
    const { response, body } = await this.send({ ...req, responseType: 'bytes' }, opts);
    return { status: response.status, headers: response.headers, bytes: body as Uint8Array };
  }

  private async send(
    req: HttpRequest,
    opts: RequestOptions,
  ): Promise<{ response: Response; body: string | Uint8Array }> {
    const url = this.url(req.path, req.query);
    const timeoutMs = opts.timeoutMs ?? this.#config.timeoutMs;
    const maxRetries = Math.max(0, opts.maxRetries ?? this.#config.maxRetries);
    const backoff = this.#config.backoff ?? defaultBackoff;
    const headers: Record<string, string> = {
      Accept:
        req.responseType === 'text'
          ? 'text/csv, text/plain, application/json'
          : req.responseType === 'bytes'
            ? '*/*'
            : 'application/json',
      'X-Service-Source': this.#config.source,
      ...req.headers,
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    if (this.#config.apiKey !== undefined) headers['X-API-Key'] = this.#config.apiKey;
    else if (req.method !== 'GET' && this.#csrfToken !== undefined) headers['X-CSRF-Token'] = this.#csrfToken;
    if (req.method === 'POST')
      headers['Idempotency-Key'] = opts.idempotencyKey ?? globalThis.crypto.randomUUID();

    for (let attempt = 0; ; attempt++) {
      throwIfAborted(opts.signal);
      const { controller, dispose } = linkedController(opts.signal);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      let response: Response;
      let payload: string | Uint8Array;
      try {
        response = await this.#config.fetch(url, {
          method: req.method,
          headers,
          body,
          signal: controller.signal,
          // Session mode sends the dashboard's cookie, only ever to the page's own origin.
          ...(this.#config.apiKey === undefined ? { credentials: 'same-origin' as const } : {}),
        });
        payload =
          req.responseType === 'bytes' && response.ok
            ? new Uint8Array(await response.arrayBuffer())
            : await response.text();
      } catch (err) {
        if (opts.signal?.aborted) throw new RequestAbortedError(opts.signal.reason);
        const failure = timedOut
          ? new ApiTimeoutError(url, timeoutMs, attempt + 1)
          : new ApiConnectionError(url, attempt + 1, err);
        if (attempt >= maxRetries) throw failure;
        await sleep(backoffDelay(attempt, backoff), opts.signal);
        continue;
      } finally {
        clearTimeout(timer);
        dispose();
      }
      if (response.ok) return { response, body: payload };
      const error = toApiError(response, payload as string, req.method, url);
      if (!isRetryable(response.status, response.headers) || attempt >= maxRetries) throw error;
      const hinted = parseRetryAfter(response.headers.get('retry-after'));
      await sleep(hinted ?? backoffDelay(attempt, backoff), opts.signal);
    }
  }
}

/**
 * Reads the `{ code, detail, requestId }` body (falling back to the status) into a typed error.
 * `redact`: applied to what the error quotes of the answer (its detail, or the excerpt of a
 * non-JSON body before it is cut), for an upload whose store may quote the URL's credential back
 * (see `redactQueryValues` in uploads/put.ts).
 */
export function toApiError(
  response: Response,
  text: string,
  method: string,
  url: string,
  redact: (text: string) => string = (t) => t,
): ApiError {
  let code: string | undefined;
  let detail: string | undefined;
  let requestId: string | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') {
      const rec = parsed as Record<string, unknown>;
      if (typeof rec.code === 'string') code = rec.code;
      if (typeof rec.detail === 'string') detail = rec.detail;
      else if (typeof rec.message === 'string') detail = rec.message;
      if (typeof rec.requestId === 'string') requestId = rec.requestId;
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): the status and a short excerpt still say what happened.
  }
  return apiErrorFor({
    status: response.status,
    code: code ?? fallbackCode(response.status),
    // Redacted before the excerpt is cut, so that no part of a value is left at its end.
    detail:
      detail !== undefined
        ? redact(detail)
        : redact(text.trim()).slice(0, 200) || response.statusText || `HTTP ${response.status}`,
    requestId: requestId ?? response.headers.get('x-request-id') ?? undefined,
    headers: response.headers,
    method,
    url,
  });
}

function fallbackCode(status: number): string {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 500:
      return 'internal_error';
    case 503:
      return 'upstream_unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'http_error';
  }
}
