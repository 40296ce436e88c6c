import { creditWallet } from "@wallet/ledger-core";
import { operationViewSchema } from "../operations/schemas.js";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { creditWalletBodySchema } from "./schemas.js";

export const creditRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/wallet-credits",
    operationId: "creditWallet",
    summary: "Credit a wallet from the tenant's prefunded balance",
    tag: "Wallet credits",
    scopes: ["wallet-credits:write"],
    body: creditWalletBodySchema,
    success: { status: 201, description: "The completed credit operation", schema: operationViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => creditWallet(deps.core, ctx, tx, body),
  }),
];
