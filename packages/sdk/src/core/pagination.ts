/** Page-number pagination: one page object, and an async iterator over every item of every page. */
import type { RequestOptions } from './http.js';

export interface PageParams {
  /** 1-based page number. */
  page?: number;
  /** Items per page (the server caps it). */
  limit?: number;
}

/** One page of a listing, as the server returns it. */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  /** Items in the whole list. */
  total: number;
  /** True when a later page has items. */
  hasMore: boolean;
}

/**
 * Iterates over every item, fetching the next page only when the current one is used up.
 * Page-number pagination can skip or repeat an item when runs are created or deleted meanwhile.
 */
export async function* iterateItems<T>(
  fetchPage: (params: PageParams, opts: RequestOptions) => Promise<Page<T>>,
  params: PageParams,
  opts: RequestOptions,
): AsyncGenerator<T, void, undefined> {
  let page = params.page ?? 1;
  for (;;) {
    const result = await fetchPage({ ...params, page }, opts);
    for (const item of result.items) yield item;
    if (!result.hasMore || result.items.length === 0) return;
    page = result.page + 1;
  }
}
