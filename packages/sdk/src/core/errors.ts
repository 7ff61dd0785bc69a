/**
 * Error classes of the Vesta SDK. API errors mirror the server's stable error codes; the rest
 * describe what went wrong on the client side (no key, no connection, timeout, abort).
 */

import type { components } from '../generated/openapi.generated.js';

/**
 * Error codes the API documents: the `ErrorBody.code` enum of openapi/openapi.json, which the
 * server generates from its error catalogue. Open-ended: a later server may add codes.
 */
export type KnownErrorCode = components['schemas']['ErrorBody']['code'];
export type ErrorCode = KnownErrorCode | (string & {});

/** Base class of every error the SDK throws; `code` is stable and safe to branch on. */
export class VestaError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

export interface ApiErrorInit {
  status: number;
  code: ErrorCode;
  detail: string;
  requestId: string | undefined;
  headers: Headers;
  method: string;
  url: string;
}

/** The server answered with a non-2xx status. Subclasses exist for every documented code. */
export class ApiError extends VestaError {
  readonly status: number;
  readonly detail: string;
  readonly requestId: string | undefined;
  readonly headers: Headers;
  readonly method: string;
  readonly url: string;
  constructor(init: ApiErrorInit) {
    super(
      init.code,
      `${init.status} ${init.code}: ${init.detail}${init.requestId ? ` (request ${init.requestId})` : ''}`,
    );
    this.status = init.status;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.method = init.method;
    this.url = init.url;
  }
}

/** 400 `validation_failed`: the body shape is wrong. */
export class ValidationFailedError extends ApiError {}
/** 400 `invalid_field`: the body has a field the route does not accept. */
export class InvalidFieldError extends ApiError {}
/** 400 `RANK_PROMPT_MISMATCH`: a Rank upload passes a prompt different from the locked one. */
export class RankPromptMismatchError extends ApiError {}
/** 401 `unauthorized`: missing or invalid API key. */
export class UnauthorizedError extends ApiError {}
/** 403 `forbidden`: the resource is not the caller's. */
export class ForbiddenError extends ApiError {}
/** 404 `not_found`: resource missing or route unknown. */
export class NotFoundError extends ApiError {}
/** 409 `conflict`: a state precondition failed. */
export class ConflictError extends ApiError {}
/** 409 `idempotency_mismatch`: an Idempotency-Key was reused with a different body. */
export class IdempotencyMismatchError extends ApiError {}
/** 409 `no_scored_clips`: a run named in a comparison has no scored clip yet. */
export class NoScoredClipsError extends ApiError {}
/** 409 `judging_closed`: the judging campaign is closed (no more votes, pairs or judges). */
export class JudgingClosedError extends ApiError {}
/** 409 `pair_not_offered`: the vote names a pair that was not offered to the calling judge. */
export class PairNotOfferedError extends ApiError {}
/** 409 `already_voted`: the judge already voted on this pair; the first vote stands. */
export class AlreadyVotedError extends ApiError {}
/** 409 `judge_not_invited`: a non-admin owner added an email with no account and no pending invite (ask an admin to invite it). */
export class JudgeNotInvitedError extends ApiError {}
/** 500 `internal_error`: server fault (retried automatically). */
export class InternalError extends ApiError {}
/** 503 `upstream_unavailable`: a dependency of the server is down (retried automatically). */
export class UpstreamUnavailableError extends ApiError {}

/** 400 `invalid_video`: the uploaded object is not a usable video (empty, wrong container, undecodable). */
export class InvalidVideoError extends ApiError {}
/** 413 `payload_too_large`: a body or an uploaded clip is over its size limit. */
export class PayloadTooLargeError extends ApiError {}
/** 415 `unsupported_media_type`: the Content-Type is not accepted (an upload PUT takes exactly the declared type). */
export class UnsupportedMediaTypeError extends ApiError {}
/** 408 `request_timeout`: the request was not received in time (the connection was closed). */
export class RequestTimeoutError extends ApiError {}
/** 414 `uri_too_long`: a path parameter is longer than the router's limit. */
export class UriTooLongError extends ApiError {}
/** 431 `headers_too_large`: the request line and headers are over the server's limit. */
export class HeadersTooLargeError extends ApiError {}
/** 416 `range_not_satisfiable`: a clip's bytes were asked for with a range past its end. */
export class RangeNotSatisfiableError extends ApiError {}

/** 429 `rate_limited`: a rate limit (per key or client address) or too many failed sign-ins; honour `Retry-After`. */
export class RateLimitedError extends ApiError {}

/** One class per documented code; the compiler fails when the document's enum and this map differ. */
const byCode: Record<KnownErrorCode, new (init: ApiErrorInit) => ApiError> = {
  validation_failed: ValidationFailedError,
  invalid_field: InvalidFieldError,
  RANK_PROMPT_MISMATCH: RankPromptMismatchError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  conflict: ConflictError,
  idempotency_mismatch: IdempotencyMismatchError,
  no_scored_clips: NoScoredClipsError,
  judging_closed: JudgingClosedError,
  pair_not_offered: PairNotOfferedError,
  already_voted: AlreadyVotedError,
  judge_not_invited: JudgeNotInvitedError,
  internal_error: InternalError,
  upstream_unavailable: UpstreamUnavailableError,
  invalid_video: InvalidVideoError,
  payload_too_large: PayloadTooLargeError,
  unsupported_media_type: UnsupportedMediaTypeError,
  request_timeout: RequestTimeoutError,
  uri_too_long: UriTooLongError,
  headers_too_large: HeadersTooLargeError,
  range_not_satisfiable: RangeNotSatisfiableError,
  rate_limited: RateLimitedError,
};

/** The codes that have their own error class, in the document's order. */
export const KNOWN_ERROR_CODES = Object.keys(byCode) as KnownErrorCode[];

/** Builds the error class that matches the server's `code` (generic {@link ApiError} otherwise). */
export function apiErrorFor(init: ApiErrorInit): ApiError {
  const Ctor = Object.prototype.hasOwnProperty.call(byCode, init.code)
    ? byCode[init.code as KnownErrorCode]
    : ApiError;
  return new Ctor(init);
}

/** No API key was given and the named environment variable is unset or empty. */
export class MissingApiKeyError extends VestaError {
  readonly envVar: string | undefined;
  constructor(envVar: string | undefined) {
    super(
      'missing_api_key',
      envVar
        ? `No API key: set the ${envVar} environment variable or pass { apiKey } to new Vesta().`
        : 'No API key: pass { apiKey } to new Vesta() (environment variables are not read in a browser).',
    );
    this.envVar = envVar;
  }
}

/** The server could not be reached (DNS, refused, reset), after every retry. */
export class ApiConnectionError extends VestaError {
  readonly url: string;
  readonly attempts: number;
  constructor(url: string, attempts: number, cause: unknown) {
    super(
      'connection_failed',
      `Could not reach ${url} after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${describeCause(cause)}`,
      { cause },
    );
    this.url = url;
    this.attempts = attempts;
  }
}

/** A request (headers and body) did not complete within its timeout, after every retry. */
export class ApiTimeoutError extends VestaError {
  readonly url: string;
  readonly timeoutMs: number;
  constructor(url: string, timeoutMs: number, attempts: number) {
    super(
      'timeout',
      `Request to ${url} timed out after ${timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'}).`,
    );
    this.url = url;
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired. */
export class RequestAbortedError extends VestaError {
  constructor(reason?: unknown) {
    super('aborted', 'The request was aborted.', { cause: reason });
  }
}

/** The upload source (path, Blob, stream) cannot be read. */
export class UploadSourceError extends VestaError {
  constructor(message: string, cause?: unknown) {
    super('file_unreadable', message, { cause });
  }
}

/**
 * An argument the SDK refuses before sending anything (an empty prompt); `argument` names it. The
 * CLI exits 2 (a usage error) on it.
 */
export class InvalidArgumentError extends VestaError {
  readonly argument: string;
  constructor(argument: string, message: string) {
    super('invalid_argument', message);
    this.argument = argument;
  }
}

/** `wait` was requested and the clip ended in the `failed` state. */
export class ScoringFailedError extends VestaError {
  readonly videoId: string;
  readonly video: unknown;
  constructor(videoId: string, video: unknown, reason: string | undefined) {
    super('scoring_failed', `Scoring of video ${videoId} failed${reason ? `: ${reason}` : '.'}`);
    this.videoId = videoId;
    this.video = video;
  }
}

/** `wait` was requested and the clip was not scored before the deadline. */
export class WaitTimeoutError extends VestaError {
  readonly videoId: string;
  readonly lastState: string | undefined;
  constructor(videoId: string, timeoutMs: number, lastState: string | undefined) {
    super(
      'wait_timeout',
      `Video ${videoId} was not scored within ${timeoutMs} ms (last state: ${lastState ?? 'unknown'}).`,
    );
    this.videoId = videoId;
    this.lastState = lastState;
  }
}

/**
 * A wait for a clip ended because the clip is no longer in the session: the session was reset
 * (from another process, the dashboard or the CLI) and now has another run id, or the clip was
 * removed. Waiting on would only run out the deadline.
 */
export class VideoGoneError extends VestaError {
  readonly videoId: string;
  /** The session run the clip was uploaded to. */
  readonly runId: string;
  /** The session's run id now (another one after a reset). */
  readonly currentRunId: string;
  constructor(videoId: string, runId: string, currentRunId: string) {
    super(
      'video_gone',
      runId === currentRunId
        ? `Video ${videoId} is no longer in session ${runId} (it was removed) while waiting for its scores.`
        : `The session ${runId} was reset (it is now ${currentRunId}) while waiting for video ${videoId}: the clip is no longer listed, upload it again to score it.`,
    );
    this.videoId = videoId;
    this.runId = runId;
    this.currentRunId = currentRunId;
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // fetch wraps the socket error: "fetch failed" with cause { code: 'ECONNREFUSED', message }.
  const inner = (cause as Error & { cause?: unknown }).cause;
  const source = inner instanceof Error ? inner : cause;
  const code = (source as Error & { code?: unknown }).code;
  const message = source.message || (inner instanceof AggregateError ? String(inner.errors[0]) : '');
  if (typeof code === 'string' && !message.includes(code)) return `${code} ${message}`.trim();
  return message || cause.message;
}

/**
 * Whether `err` may go away on its own: the call is worth repeating. No answer, 408, 429, 5xx, or a
 * 409 with Retry-After (the same Idempotency-Key or upload still in progress elsewhere: it ends by
 * itself), as the HTTP layer's own retries and the Python SDK's `is_transient` decide.
 */
export function isTransient(err: unknown): boolean {
  if (err instanceof ApiConnectionError || err instanceof ApiTimeoutError) return true;
  return (
    err instanceof ApiError &&
    (err.status >= 500 ||
      err.status === 429 ||
      err.status === 408 ||
      (err.status === 409 && err.headers.has('retry-after')))
  );
}
