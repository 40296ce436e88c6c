import { getWalletBalance, listWalletTransactions } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { splitListQuery } from "../validation/pagination.js";
import { statementPageSchema, walletBalanceSchema, walletTransactionsQuerySchema } from "./schemas.js";

export const walletRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "GET",
    path: "/wallets/{uid}/balance",
    operationId: "getWalletBalance",
    summary: "Current, held and available balance of a wallet",
    tag: "Wallets",
    scopes: ["wallets:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The wallet balance", schema: walletBalanceSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => getWalletBalance(deps.core, ctx, tx, params.uid),
  }),
  tenantRoute({
    method: "GET",
    path: "/wallets/{uid}/transactions",
    operationId: "listWalletTransactions",
    summary: "The wallet's statement: operations that moved funds or reached a final state",
    tag: "Wallets",
    scopes: ["wallets:read"],
    params: uidParamsSchema,
    query: walletTransactionsQuerySchema,
    success: { status: 200, description: "A page of the statement", schema: statementPageSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params, query }) => {
      const { filter, page } = splitListQuery(query);
      return listWalletTransactions(deps.core, ctx, tx, params.uid, filter, page);
    },
  }),
];
