/**
 * The dashboard's one client: the project's browser SDK in session mode (the HttpOnly cookie
 * authenticates; the SDK sends the session's CSRF token on changes). No second hand-written client.
 */
import { ApiError, Vesta } from '@vesta/sdk';
import { QueryClient } from '@tanstack/react-query';
import type { Query } from '@tanstack/react-query';

export const vesta = new Vesta({ session: true, baseUrl: window.location.origin, source: 'dashboard' });

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
      staleTime: 2000,
    },
  },
});

/**
 * Live updates by polling with back-off: every 1.5 s while `active(data)` holds (a clip scoring,
 * a run in progress), doubling after each failed poll up to 30 s, and not at all once everything
 * shown is final. Hidden tabs do not poll (TanStack Query's default).
 */
export function livePoll<T>(active: (data: T) => boolean) {
  return (query: Query<T, Error, T, readonly unknown[]>): number | false => {
    const data = query.state.data;
    if (data !== undefined && !active(data)) return false;
    const failures = query.state.fetchFailureCount;
    return Math.min(30_000, 1500 * 2 ** failures);
  };
}

/** Words for an error from the API: its detail (and code), never raw HTML. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.detail} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export const formatDate = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString() : '—';

export const formatScore = (v: number | null | undefined): string =>
  v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(4);

/** A text field of a submitted form ('' when absent). */
export function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === 'string' ? v : '';
}
