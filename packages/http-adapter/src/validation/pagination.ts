import { type Page, pageSortFields } from "@wallet/ledger-core";
import * as v from "valibot";

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;
const SORT_FIELDS = pageSortFields;
const SORT_TERM = new RegExp(`^(${SORT_FIELDS.join("|")}):(ASC|DESC)$`);

const positiveIntegerText = (what: string) =>
  v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/, `${what} must be a positive integer`), v.transform(Number));

/** One or more `field:DIRECTION` terms, repeatable and/or comma-separated; fields createdAt and id only. */
const sortBySchema = v.pipe(
  v.union([v.string(), v.array(v.string())], "sortBy must be field:ASC or field:DESC"),
  v.transform((value) => (Array.isArray(value) ? value : [value]).flatMap((s) => s.split(","))),
  v.check(
    (terms) => terms.length <= SORT_FIELDS.length * 2 && terms.every((t) => SORT_TERM.test(t)),
    `sortBy must be field:ASC or field:DESC with field one of ${SORT_FIELDS.join(", ")}`,
  ),
  v.description("Repeatable `field:ASC|DESC`; fields createdAt and id; default createdAt:DESC,id:DESC."),
);

/**
 * A `limit` query parameter: any positive integer is clamped to `max`, not refused (spec), however
 * many digits it has (the request line's own cap bounds them). The tenant API's lists and the
 * operator's delivery log share it, so the two cannot disagree on what a limit is.
 */
export const clampedLimitSchema = (max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]*$/, "limit must be a positive integer"),
    v.transform((s) => (s.length > String(max).length ? max : Math.min(Number(s), max))),
  );

/**
 * The pagination parameters every list route accepts (spec, Endpoints' common rules): page
 * (1-based), limit (default 20, larger values clamped to 100), sortBy.
 */
export const paginationEntries = {
  page: v.optional(positiveIntegerText("page")),
  limit: v.optional(clampedLimitSchema(PAGE_LIMIT_MAX)),
  sortBy: v.optional(sortBySchema),
};

/** The core's Page from the validated parameters, with the spec's defaults. */
export function toPage(q: {
  page?: number | undefined;
  limit?: number | undefined;
  sortBy?: string[] | undefined;
}): Page {
  const sort = (q.sortBy ?? ["createdAt:DESC", "id:DESC"]).map((term) => {
    const [field, direction] = term.split(":") as [
      Page["sort"][number]["field"],
      Page["sort"][number]["direction"],
    ];
    return { field, direction };
  });
  return { page: q.page ?? 1, limit: q.limit ?? PAGE_LIMIT_DEFAULT, sort };
}

/** A validated list query split into what the core takes: its filter and its `Page`. */
export function splitListQuery<
  Q extends { page?: number | undefined; limit?: number | undefined; sortBy?: string[] | undefined },
>(query: Q): { filter: Omit<Q, "page" | "limit" | "sortBy">; page: Page } {
  const { page, limit, sortBy, ...filter } = query;
  return { filter, page: toPage({ page, limit, sortBy }) };
}

/** Spec, Endpoints' common rules: the response of every paginated list. */
export const pagedViewSchema = <T extends v.GenericSchema>(item: T) =>
  v.object({
    data: v.array(item),
    meta: v.object({
      total: v.pipe(v.number(), v.safeInteger()),
      page: v.pipe(v.number(), v.safeInteger()),
      limit: v.pipe(v.number(), v.safeInteger()),
      totalPages: v.pipe(v.number(), v.safeInteger()),
    }),
  });
