/**
 * The one global error handler and the not-found handler. Every error leaves as
 * `{ code, detail, requestId }` with the catalogue's status; stack traces stay in the logs.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOGUE, ERROR_CODES, isUpstreamFailure } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { describeValidation } from './validation-errors.js';
import type { ValidationIssue } from './validation-errors.js';

/**
 * Turns anything thrown into an AppError. `request` gives a validation failure the values it is
 * about (to say how long a too-long text was).
 */
export function toAppError(error: unknown, request?: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  const fe = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const context = fe.validationContext ?? 'body';
    return fromValidation(fe.validation, context, request ? partOf(request, context) : undefined);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'the request body is over the size limit');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('validation_failed', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('validation_failed', 'the JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('validation_failed', 'the body is not valid JSON');
    default:
      break;
  }
  if (isUpstreamFailure(error))
    return new AppError('upstream_unavailable', 'a dependency (database or blob storage) is unavailable', {
      cause: error,
    });
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    // The catalogue's first code with this status (its order puts the generic one first).
    const code: ErrorCode =
      ERROR_CODES.find((c) => ERROR_CATALOGUE[c].status === status) ?? 'validation_failed';
    return new AppError(
      code,
      typeof fe.message === 'string' && fe.message !== '' ? fe.message : ERROR_CATALOGUE[code].when,
      { cause: error },
    );
  }
  return new AppError('internal_error', 'unexpected server error; retry with backoff', { cause: error });
}

function fromValidation(issues: ValidationIssue[], context: string, input: unknown): AppError {
  const extra = issues.filter((i) => i.keyword === 'additionalProperties');
  if (extra.length > 0 && context === 'body') {
    const names = extra.flatMap((i) => {
      const p = i.params?.additionalProperties ?? i.params?.additionalProperty;
      const list = Array.isArray(p) ? p.map((x) => String(x as string)) : typeof p === 'string' ? [p] : [];
      return list.map((n) => `${i.instancePath ?? ''}/${n}`.replace(/^\//, '').replaceAll('/', '.'));
    });
    return new AppError(
      'invalid_field',
      `the body has ${names.length === 1 ? 'a field' : 'fields'} the route does not accept: ${names.join(', ')}`,
    );
  }
  return new AppError('validation_failed', describeValidation(issues, context, input));
}

function partOf(request: FastifyRequest, context: string): unknown {
  switch (context) {
    case 'body':
      return request.body;
    case 'querystring':
      return request.query;
    case 'params':
      return request.params;
    case 'headers':
      return request.headers;
    default:
      return undefined;
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send({ code: err.code, detail: err.detail, requestId: request.id });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request);
    if (appError.status >= 500) request.log.error({ err: error, code: appError.code }, 'request failed');
    else request.log.info({ code: appError.code, detail: appError.detail }, 'request rejected');
    if (
      appError.status === 413 ||
      (request.raw.readable && !request.raw.readableEnded && request.method === 'PUT')
    ) {
      // The unread body would otherwise keep arriving on this connection.
      reply.header('Connection', 'close');
    }
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError('not_found', `no route ${request.method} ${shortPath(request.url)}`),
    ),
  );
}

/** The path of a URL for an error detail: never the query string, at most 100 characters. */
function shortPath(url: string): string {
  const p = url.split('?')[0] ?? '';
  return p.length > 100 ? `${p.slice(0, 100)}… (${p.length} characters)` : p;
}
