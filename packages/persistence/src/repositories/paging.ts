import type { Page } from "@wallet/ledger-core";

export interface SortKey {
  column: "created_at" | "uid";
  direction: "asc" | "desc";
}

const sortColumns = { createdAt: "created_at", id: "uid" } as const;

/**
 * The requested order with `uid` appended when absent, in the direction of the first key, so the
 * order is total and an index on (…, created_at, uid) is walked in one direction (the same
 * tiebreak as the memory store; the API's default is `createdAt:DESC,id:DESC`).
 */
export function sortKeys(page: Page): SortKey[] {
  const keys: SortKey[] = page.sort.map((s) => ({
    column: sortColumns[s.field],
    direction: s.direction === "ASC" ? "asc" : "desc",
  }));
  if (!keys.some((k) => k.column === "uid"))
    keys.push({ column: "uid", direction: keys[0]?.direction ?? "desc" });
  return keys;
}

/** Offset pagination: pages are 1-based. */
export function pageWindow(page: Page): { limit: number; offset: number } {
  const limit = Math.max(0, Math.trunc(page.limit));
  return { limit, offset: Math.max(0, Math.trunc(page.page) - 1) * limit };
}
