import type { Page } from "@wallet/ledger-core";
import type * as v from "valibot";
import { asDomainRefusal } from "./errors/http-error.js";
import { listMandatesQuerySchema } from "./mandates/schemas.js";
import { listOperationsQuerySchema } from "./operations/schemas.js";
import { queryValues } from "./routes/mount-routes.js";
import { splitListQuery } from "./validation/pagination.js";
import { validateInput } from "./validation/validate.js";
import { walletTransactionsQuerySchema } from "./wallets/schemas.js";

/** The tenant API's list queries, by the core function each is the filter and page of. */
export const listQuerySchemas = {
  listOperations: listOperationsQuerySchema,
  listWalletTransactions: walletTransactionsQuerySchema,
  listMandates: listMandatesQuerySchema,
} as const;

type ListQueryOutput<K extends keyof typeof listQuerySchemas> = v.InferOutput<(typeof listQuerySchemas)[K]>;

export type ListFilterOf<K extends keyof typeof listQuerySchemas> = Omit<
  ListQueryOutput<K>,
  "page" | "limit" | "sortBy"
>;

/**
 * A query string checked as the API checks the query of the list `operation`, split into what
 * the core function of that name takes: its filter and its `Page`, with the API's defaults (page 1,
 * limit 20, at most 100, `createdAt:DESC,id:DESC`). A key may repeat (`URLSearchParams` keeps
 * every value). What the API answers 400 is a `DomainError` `InvalidRequest` here, with the same
 * message and details.
 *
 * @example
 *   const { filter, page } = parseListQuery("listOperations", new URL(req.url).searchParams);
 *   const result = await store.uow.run((tx) => listOperations(core, ctx, tx, filter, page));
 */
export function parseListQuery<K extends keyof typeof listQuerySchemas>(
  operation: K,
  query: URLSearchParams | Record<string, string | string[]>,
): { filter: ListFilterOf<K>; page: Page } {
  const all: Record<string, string[]> = Object.create(null);
  if (query instanceof URLSearchParams) {
    for (const key of new Set(query.keys())) all[key] = query.getAll(key);
  } else {
    // A key with no value is absent, as in a query string (`sortBy: []` is the default sort).
    for (const [key, value] of Object.entries(query)) {
      const values = [value].flat();
      if (values.length > 0) all[key] = values;
    }
  }
  const parsed = asDomainRefusal(
    () => validateInput(listQuerySchemas[operation], queryValues(all), "query") as ListQueryOutput<K>,
  );
  return splitListQuery(parsed) as { filter: ListFilterOf<K>; page: Page };
}
