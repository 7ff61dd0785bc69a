/** Shared names of the Bench routes. */
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../../request-context.js';
import { userOf } from '../sessions/session-routes.js';

export const BENCH_TAG = 'Bench';
/** The resource kind the `{id}` of a Bench route names (for the ownership walker). */
export const BENCH_RESOURCE = 'bench-run';
/** A model id in a route's path: another user's private model is hidden (404, as an unknown id). */
export const MODEL_RESOURCE = 'model';

/** The caller on an authenticated route (the auth hook has already refused anonymous requests). */
export function callerOf(request: FastifyRequest): AuthenticatedUser {
  return userOf(request);
}
