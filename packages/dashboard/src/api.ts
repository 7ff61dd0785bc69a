/**
 * The dashboard's one client: the project's browser SDK in session mode (the HttpOnly cookie
 * authenticates; the SDK sends the session's CSRF token on changes). No second hand-written client.
 */
import { ApiError, Vesta } from '@vesta/sdk';
import type { Dimension } from '@vesta/sdk';
import { MutationCache, QueryCache, QueryClient, useQuery } from '@tanstack/react-query';
import type { Query } from '@tanstack/react-query';
import { useCallback } from 'react';

export const vesta = new Vesta({ session: true, baseUrl: window.location.origin, source: 'dashboard' });

/**
 * A 401 on any read or change means the session ended (idle, past its end, signed out elsewhere,
 * the user disabled): re-ask "who am I" so the signed-in frame sends the visitor to sign-in.
 */
function onApiError(error: unknown): void {
  if (error instanceof ApiError && error.status === 401)
    void queryClient.invalidateQueries({ queryKey: ['me'] });
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onApiError }),
  mutationCache: new MutationCache({ onError: onApiError }),
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

/** A message as a sentence: capital first letter, full stop at the end. */
export function sentence(text: string): string {
  const t = text.trim();
  if (t === '') return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/** An error's words and, for an API error, its catalogue code (shown apart, smaller). */
export function describeError(error: unknown): { text: string; code: string | null } {
  if (error instanceof ApiError) return { text: sentence(error.detail), code: error.code };
  if (error instanceof Error) return { text: sentence(error.message), code: null };
  return { text: sentence(String(error)), code: null };
}

/** An error in one line of words (for places that take a string). */
export function errorText(error: unknown): string {
  const { text, code } = describeError(error);
  return code ? `${text} (${code})` : text;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatDate = (iso: string | null | undefined): string =>
  iso ? dateFormat.format(new Date(iso)) : '—';

export const formatScore = (v: number | null | undefined): string =>
  v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(4);

/** A method with its version: `lite v2`, `vbench 0.1.5-onnx.1`. */
export const formatMethod = (id: string, version: string | null | undefined): string =>
  version ? `${id} ${/^\d+$/.test(version) ? `v${version}` : version}` : id;

/** A text field of a submitted form ('' when absent). */
export function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === 'string' ? v : '';
}

/** The dimension catalogue (it changes only when the server's models do). */
export function useDimensions() {
  return useQuery({
    queryKey: ['dimensions'],
    queryFn: () => vesta.dimensions.list(),
    staleTime: 5 * 60_000,
  });
}

/** Words for a dimension id (`aesthetic_quality` → `Aesthetic quality`), the id until the catalogue loads. */
export function useDimensionName(): (id: string) => string {
  const dims = useDimensions();
  const items: Dimension[] | undefined = dims.data?.items;
  return useCallback((id: string) => items?.find((d) => d.id === id)?.name ?? id, [items]);
}
