/**
 * Responses the framework and Node's HTTP parser would otherwise make by themselves, brought into
 * the one error catalogue (`{ code, detail, requestId }`):
 *
 * - router errors (a path parameter over the router's length limit, a malformed percent-encoding
 *   in the path) through Fastify's `frameworkErrors`; the URL is never echoed back;
 * - parser errors on the socket (headers over Node's limit → 431, a malformed request line or
 *   bytes after a request that do not form one → 400, a request not received in time → 408)
 *   through Fastify's `clientErrorHandler`;
 * - JSON bodies nested deeper than the configured limit, refused before they are parsed.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOGUE } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { sendError } from './error-handler.js';

/** Fastify's router errors (`frameworkErrors`), answered through the catalogue. */
export function frameworkErrorHandler(maxParamLength: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', request.id);
    let appError: AppError;
    switch (error.code) {
      case 'FST_ERR_MAX_PARAM_LENGTH':
        appError = new AppError(
          'uri_too_long',
          `a path parameter is longer than ${maxParamLength} characters; no resource has such an id`,
        );
        break;
      case 'FST_ERR_BAD_URL':
        appError = new AppError(
          'validation_failed',
          'the URL path holds a malformed percent-encoding (a % must be followed by two hex digits)',
        );
        break;
      default:
        request.log.error({ err: error }, 'router error');
        appError = new AppError('internal_error', 'unexpected server error; retry with backoff');
    }
    request.log.info({ code: appError.code, frameworkCode: error.code }, 'request rejected');
    void sendError(request, reply, appError);
  };
}

/** What a Node HTTP parser error on the socket is answered with. */
export function classifyClientError(err: NodeJS.ErrnoException): { code: ErrorCode; detail: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        detail: 'the request line and headers are over the server limit (16 KiB by default)',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { code: 'request_timeout', detail: 'the request was not received in time' };
    default:
      return {
        code: 'validation_failed',
        detail: `the bytes sent are not a well-formed HTTP/1.1 request${typeof err.code === 'string' && err.code.startsWith('HPE_') ? ` (${err.code})` : ''}`,
      };
  }
}

const STATUS_LINE: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** The raw HTTP response for a parser error (the connection is closed after it). */
export function clientErrorResponse(err: NodeJS.ErrnoException, requestId: string = randomUUID()): string {
  const { code, detail } = classifyClientError(err);
  const status = ERROR_CATALOGUE[code].status;
  const body = JSON.stringify({ code, detail, requestId });
  return (
    `HTTP/1.1 ${status} ${STATUS_LINE[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Fastify's `clientErrorHandler`. When the error arrives while an earlier request on the same
 * kept-alive connection is still being answered (bytes sent beyond its Content-Length), that answer
 * is let out first; the error response follows and the connection closes.
 *
 * When that request's own body is still arriving, the error means the body never will: the client
 * closed its side mid-body (a dropped upload reads as `HPE_INVALID_EOF_STATE`). The connection is
 * then destroyed at once, so the request's body stream ends in an error and its handler lets go of
 * what it holds (an upload's claim and partial bytes) now, not after a timeout.
 */
export function clientErrorHandler(
  this: { log: { info(obj: object, msg: string): void } },
  err: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished && !inFlight.req.complete) {
    this.log.info({ parserCode: err.code }, 'client closed the connection mid-body');
    socket.destroy();
    return;
  }
  this.log.info({ code: classifyClientError(err).code, parserCode: err.code }, 'malformed request refused');
  const respond = (): void => {
    if (socket.writable) socket.end(clientErrorResponse(err));
    else socket.destroy();
  };
  if (inFlight && !inFlight.writableFinished) {
    const timer = setTimeout(() => socket.destroy(), 30_000);
    timer.unref();
    inFlight.once('finish', () => {
      clearTimeout(timer);
      respond();
    });
    inFlight.once('close', () => clearTimeout(timer));
    return;
  }
  respond();
}

/**
 * The nesting depth of a JSON text (objects and arrays), stopping as soon as it passes `limit`.
 * Strings are skipped, so brackets inside them do not count. Linear in the text, no recursion.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}
