/**
 * Per-request context: the request id (taken from a well-formed incoming `X-Request-Id` or
 * generated) echoed in the `X-Request-Id` header, the authenticated user, and the normalised
 * `X-Service-Source` label (used only in request logs and metrics).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthenticatedUser } from '../domain/views/accounts.js';

export type { AuthenticatedUser };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on authenticated routes. */
    user: AuthenticatedUser | null;
    /** Normalised X-Service-Source, `none` when absent. */
    source: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

const SOURCE = /^[a-z0-9._-]{1,32}$/;

/** A bounded label: lower-cased, at most 32 of [a-z0-9._-]; anything else is `other`. */
export function normaliseSource(header: string | string[] | undefined): string {
  if (header === undefined) return 'none';
  const v = (Array.isArray(header) ? (header[0] ?? '') : header).trim().toLowerCase();
  if (v === '') return 'none';
  return SOURCE.test(v) ? v : 'other';
}

/** The URL as logged: the upload token (a credential) is never written out. */
export function redactUrl(url: string): string {
  // Most URLs have no query string at all: skip the regular expression for them.
  if (!url.includes('?')) return url;
  return url.replace(/([?&]token=)[^&]*/gi, '$1[redacted]');
}
