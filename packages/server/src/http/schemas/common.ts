/** Schemas shared by every route: the error body, id parameters, and the error responses helper. */
import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../errors.js';
import type { ErrorCode } from '../../errors.js';

export const ErrorBody = Type.Object(
  {
    code: Type.Enum(ERROR_CODES, {
      description:
        'Stable error code from the catalogue (packages/server/src/errors.ts); branch on it, never on detail.',
    }),
    detail: Type.String({ description: 'Human-readable explanation; may change over time.' }),
    requestId: Type.String({ description: 'The request id, also sent in the X-Request-Id header.' }),
  },
  { title: 'ErrorBody', description: 'Every error response.' },
);

export const SessionIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64, description: 'The run id of the session.' }) },
  { additionalProperties: false },
);

/** A clip of a Score/Rank session: the session's run id and the clip's video id. */
export const SessionVideoParams = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'The run id of the session.' }),
    videoId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The id of a clip of that session (`videoId` of its upload).',
    }),
  },
  { additionalProperties: false },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or invalid API key',
  403: "Not the caller's resource",
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  416: 'Range not satisfiable',
  429: 'Too many requests (a rate limit the operator turned on, or failed sign-ins); retry after Retry-After seconds',
  500: 'Internal error',
  503: 'A dependency is unavailable; retry after Retry-After seconds',
};

/**
 * Error responses for the given codes, grouped by status, each described with the codes it may
 * carry. Every route may also answer 429 `rate_limited` (when rate limits are on), 500 and 503.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const all: ErrorCode[] = [...codes, 'rate_limited', 'internal_error', 'upstream_unavailable'];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of all) {
    const s = ERROR_CATALOGUE[c].status;
    byStatus.set(s, [...new Set([...(byStatus.get(s) ?? []), c])]);
  }
  const out: Record<number, TSchema> = {};
  for (const [status, cs] of byStatus) {
    out[status] = Type.Object(ErrorBody.properties, {
      title: 'ErrorBody',
      description: `${STATUS_TEXT[status] ?? 'Error'} (code: ${cs.join(' | ')})`,
    });
  }
  return out;
}

/**
 * The responses of an operation that answers 204 with no body when it succeeds (`done` says what
 * happened) or one of the errors of `codes` (with those of `errorResponses`).
 */
export function noContentResponses(done: string, ...codes: ErrorCode[]) {
  return { 204: Type.Null({ description: done }), ...errorResponses(...codes) };
}

/** What a route's request may carry, for `withRequestErrors`. */
export interface RequestParts {
  /** It validates path parameters, a query string or a body. */
  validates: boolean;
  /** It may be sent a body: a JSON body it reads, or one it refuses. */
  body: boolean;
  /** It takes no body (one sent is 400 `invalid_field`). */
  noBody: boolean;
  /** It has path parameters (the router refuses one over its length limit). */
  pathParams: boolean;
}

/**
 * `responses` with the errors answered before a route's handler runs, where the route's own list
 * lacks them: 400 `validation_failed` where it validates its request (`invalid_field` where it
 * takes no body), 413 `payload_too_large`
 * (over `VESTA_BODY_LIMIT_BYTES`) and 415 `unsupported_media_type` (not JSON) where it may be sent a
 * body, 414 `uri_too_long` where it has path parameters. The app applies it to every route.
 */
export function withRequestErrors<R extends Record<string | number, unknown>>(
  responses: R,
  parts: RequestParts,
): R {
  const codes: ErrorCode[] = [];
  if (parts.validates) codes.push('validation_failed');
  if (parts.noBody) codes.push('invalid_field');
  if (parts.body) codes.push('payload_too_large', 'unsupported_media_type');
  if (parts.pathParams) codes.push('uri_too_long');
  const framework = errorResponses(...codes);
  const added: Record<number, TSchema> = {};
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    if (!(status in responses)) added[status] = framework[status]!;
  }
  return { ...responses, ...added };
}

/** The errors every authenticated route can answer. */
export const AUTH_ERRORS: ErrorCode[] = ['unauthorized'];

/**
 * The errors of a request about a resource its caller must own: its input refused (400), no key
 * (401), someone else's (403), none such (404).
 */
export const OWNED_RESOURCE_ERRORS: ErrorCode[] = [
  'validation_failed',
  'invalid_field',
  'unauthorized',
  'forbidden',
  'not_found',
];

/**
 * The errors of a read of a resource its caller must own (no body): a malformed id (400), no key
 * (401), someone else's (403), none such (404).
 */
export const OWNED_READ_ERRORS: ErrorCode[] = ['validation_failed', 'unauthorized', 'forbidden', 'not_found'];
