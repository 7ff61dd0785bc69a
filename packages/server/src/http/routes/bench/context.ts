/** Shared names of the Bench routes. */
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../../request-context.js';
import { userOf } from '../sessions/session-routes.js';

export const BENCH_TAG = 'Bench';
/** The resource kind the `{id}` of a Bench route names (for the ownership walker). */
export const BENCH_RESOURCE = 'bench-run';

/** The caller on an authenticated route (the auth hook has already refused anonymous requests). */
export function callerOf(request: FastifyRequest): AuthenticatedUser {
  return userOf(request);
}
