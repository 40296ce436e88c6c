import { assertCount, refuse } from "./errors.js";

/**
 * The rows of one page of an operator list (the audit log, suspense items): `limit` whole, at
 * least 1 and at most `max` (`fallback` when absent); `page` 1-based (1 when absent).
 */
export function listWindow(
  query: { limit?: number | undefined; page?: number | undefined },
  bounds: { fallback: number; max: number },
): { limit: number; offset: number } {
  // A value that is no number at all (NaN, or a string from untyped JSON) counts as absent;
  // Infinity clamps like any large number, and the offset stays an exact integer.
  const whole = (v: unknown, absent: number) =>
    typeof v === "number" && !Number.isNaN(v) ? Math.trunc(v) : absent;
  const limit = Math.min(Math.max(1, whole(query.limit, bounds.fallback)), bounds.max);
  const pageMax = Math.floor(Number.MAX_SAFE_INTEGER / limit);
  const page = Math.min(Math.max(1, whole(query.page, 1)), pageMax);
  return { limit, offset: (page - 1) * limit };
}

/** The order fields a tenant listing can sort by (DESIGN.md section 3: createdAt, id). */
export const pageSortFields = ["createdAt", "id"] as const;
export type PageSortField = (typeof pageSortFields)[number];

/**
 * Domain guard for a page of a tenant listing (operations, a statement, mandates) that reaches a
 * use case without the HTTP schema (embedding): `page` and `limit` whole numbers from 1 whose
 * offset stays exact, and sort keys of `pageSortFields` in ASC or DESC. The API's schema clamps
 * a large `limit` to 100 before it gets here; the core takes any.
 */
export function assertPage(page: {
  page: unknown;
  limit: unknown;
  sort: readonly { field: unknown; direction: unknown }[];
}): void {
  assertCount("page", page.page);
  assertCount("limit", page.limit);
  if (((page.page as number) - 1) * (page.limit as number) > Number.MAX_SAFE_INTEGER) {
    refuse("InvalidRequest", "page is beyond the last possible page", [
      { field: "page", issue: "too large" },
    ]);
  }
  for (const key of Array.isArray(page.sort) ? page.sort : [null]) {
    const known =
      key !== null &&
      (pageSortFields as readonly unknown[]).includes(key.field) &&
      (key.direction === "ASC" || key.direction === "DESC");
    if (!known) {
      refuse("InvalidRequest", "sort keys are createdAt or id, ASC or DESC", [
        { field: "sort", issue: "unknown sort key" },
      ]);
    }
  }
}
