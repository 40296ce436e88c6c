/** A paginated list answer (spec, Endpoints: common rules). */
export interface Page<T> {
  data: T[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}

export interface IterateOptions {
  /**
   * Stop after this many pages, even if more remain (a bound you choose on one iteration).
   * Default: none; every page is walked.
   */
  maxPages?: number | undefined;
}
/** The service's largest page: iterating needs fewer round trips with it. */
export const PAGE_LIMIT_MAX = 100;

/**
 * Walks a paginated list page by page, yielding items. `fetchPage(page)` must return the page with
 * that number. Lists are append-only and sorted, so an item created while iterating can only push
 * older items onto the next page; those repeats are dropped by `keyOf`, and nothing is skipped. An
 * item that leaves a filtered list meanwhile (e.g. an operation leaving `state=processing`) can
 * pull a later item onto a page already read: filter on states that no longer change, or re-list.
 * The same goes for an older item that joins a list meanwhile, as a top-up intent joins its
 * wallet's statement (without `includePending`) when it is paid or expires: if it sorts into a
 * page already read, it is not yielded. Use `includePending=true`, whose rows only ever grow at
 * the newest end.
 */
export async function* iteratePages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  keyOf: (item: T) => string,
  firstPage: number,
  options: IterateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const pagesMax = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (options.maxPages !== undefined && (!Number.isSafeInteger(pagesMax) || pagesMax < 1)) {
    throw new TypeError("iterate: maxPages must be a positive integer");
  }
  const seen = new Set<string>();
  for (let page = firstPage, read = 0; read < pagesMax; page++, read++) {
    const { data, meta } = await fetchPage(page);
    for (const item of data) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      yield item;
    }
    if (data.length === 0 || page >= meta.totalPages) return;
  }
}
