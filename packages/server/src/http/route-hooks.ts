/**
 * Attaches a hook to one route's options (from an `onRoute` hook), so that work only some routes
 * need (auth, idempotency, no-body checks) costs nothing on the others.
 */
import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse';

export function appendRouteHook(route: RouteOptions, name: HookName, hook: unknown): void {
  const current = route[name] as unknown;
  const list: unknown[] =
    current === undefined || current === null
      ? []
      : Array.isArray(current)
        ? [...(current as unknown[])]
        : [current];
  list.push(hook);
  (route as unknown as Record<HookName, unknown>)[name] = list;
}
