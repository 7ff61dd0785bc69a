/**
 * The one error catalogue of the API. Every error response is `{ code, detail, requestId }` with
 * the status listed here; clients branch on `code`, never on `detail`. The first ten codes are the
 * spec's; the rest are Vesta's additions for cases the spec leaves open (documented in docs/api.md).
 */
export const ERROR_CATALOGUE = {
  validation_failed: {
    status: 400,
    when: 'The request shape is wrong (wrong type, missing field, malformed JSON, bad query value).',
  },
  invalid_field: { status: 400, when: 'The body has a field that the route does not accept.' },
  RANK_PROMPT_MISMATCH: { status: 400, when: 'A Rank upload passes a prompt different from the locked one.' },
  invalid_video: {
    status: 400,
    when: 'confirm-upload found the uploaded object is not a usable video (empty, wrong container, undecodable, truncated, over a limit).',
  },
  unauthorized: { status: 401, when: 'Missing or invalid API key (or upload token).' },
  forbidden: {
    status: 403,
    when: "Authenticated, but the resource is not the caller's; or an expired upload URL.",
  },
  not_found: { status: 404, when: 'Resource missing or route unknown.' },
  request_timeout: {
    status: 408,
    when: 'The request (headers or body) was not received in time; the connection is closed.',
  },
  conflict: {
    status: 409,
    when: 'A state precondition failed (including a duplicate request still in progress, sent with Retry-After).',
  },
  idempotency_mismatch: { status: 409, when: 'An Idempotency-Key is reused with a different body.' },
  no_scored_clips: {
    status: 409,
    when: 'A Bench run named in a comparison has no scored clip yet, so there is nothing of it to compare.',
  },
  judging_closed: {
    status: 409,
    when: 'The judging campaign is closed: it takes no more votes, pairs or judges.',
  },
  pair_not_offered: {
    status: 409,
    when: 'A vote names a pair (offer) that was not offered to the calling judge in this campaign.',
  },
  judge_not_invited: {
    status: 409,
    when: 'A campaign owner who is not an admin adds a judge by an email with no account and no pending invite: only an admin can invite new users.',
  },
  already_voted: {
    status: 409,
    when: 'The judge already voted on this pair; votes are append-only and the first one stands.',
  },
  payload_too_large: { status: 413, when: 'A JSON body or an uploaded clip is over its size limit.' },
  uri_too_long: {
    status: 414,
    when: "A path parameter is longer than the router's limit (no resource has such an id).",
  },
  unsupported_media_type: {
    status: 415,
    when: 'The Content-Type is not accepted by the route (JSON routes take application/json; an upload PUT takes exactly the declared type).',
  },
  range_not_satisfiable: {
    status: 416,
    when: "A clip's bytes were asked for with a Range that starts past the end (sent with Content-Range: bytes */size).",
  },
  rate_limited: {
    status: 429,
    when: 'Too many requests: a rate limit of the API key or client address (when the operator turned limits on), or too many failed dashboard sign-ins; honour Retry-After.',
  },
  headers_too_large: {
    status: 431,
    when: "The request line and headers together are over the server's limit (16 KiB by default); the connection is closed.",
  },
  internal_error: { status: 500, when: 'Server fault; retry with backoff.' },
  upstream_unavailable: {
    status: 503,
    when: 'A dependency (object storage, database, queue, engine) is down; honour Retry-After.',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export interface AppErrorOptions {
  /** Seconds the client should wait; sent as `Retry-After`. */
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error with a catalogue code; the global handler turns it into the response. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERROR_CATALOGUE[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds ?? (code === 'upstream_unavailable' ? 5 : undefined);
    this.headers = options.headers ?? {};
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const conflict = (detail: string, options?: AppErrorOptions): AppError =>
  new AppError('conflict', detail, options);
export const forbidden = (detail: string): AppError => new AppError('forbidden', detail);
export const validationFailed = (detail: string): AppError => new AppError('validation_failed', detail);
export const upstreamUnavailable = (detail: string, cause?: unknown): AppError =>
  new AppError('upstream_unavailable', detail, { cause, retryAfterSeconds: 5 });

/** SQLite, file-system and object-store failures that mean "a dependency is down" rather than a bug. */
const UPSTREAM_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'ENOSPC',
  'EACCES',
  'EPERM',
  'EIO',
  'EROFS',
  'ENOTDIR',
  'EDQUOT',
  'EMFILE',
  'ENFILE',
  // The S3 blob store could not be reached or refused to work (adapters/blob-store/s3.ts).
  'BLOB_STORE_UNAVAILABLE',
]);

/**
 * PostgreSQL (and the network to it) gone: connection refused, reset or timed out; SQLSTATE
 * class 08 (connection exception), 53 (insufficient resources: too many connections), and
 * 57P01–57P03 (the server is shutting down, restarting, or not accepting connections yet).
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
/** What `pg` throws, without a code, when its connection ended or could not be had in time. */
const PG_CONNECTION_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable/i;

/** True when `error` (or its cause chain) is an infrastructure failure to answer with 503. */
export function isUpstreamFailure(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (UPSTREAM_CODES.has(code) ||
        NETWORK_CODES.has(code) ||
        /^(08|53)[0-9A-Z]{3}$/.test(code) ||
        [...UPSTREAM_CODES].some((c) => c.startsWith('SQLITE_') && code.startsWith(`${c}_`)))
    ) {
      return true;
    }
    if (e instanceof TypeError && /database connection is not open/i.test(e.message)) return true;
    if (PG_CONNECTION_MESSAGE.test(e.message)) return true;
    // A connection to a name with several addresses fails with one error per address.
    if (e instanceof AggregateError && e.errors.some((inner) => isUpstreamFailure(inner))) return true;
    e = e.cause;
  }
  return false;
}
