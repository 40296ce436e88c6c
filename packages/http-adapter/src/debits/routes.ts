import { debitUnderMandate, debitWallet } from "@wallet/ledger-core";
import { operationViewSchema } from "../operations/schemas.js";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { debitUnderMandateBodySchema, debitWalletBodySchema } from "./schemas.js";

/** Wallet debits to a mandate's beneficiary (spec: POST /wallet-debits, POST /mandates/{uid}/debits). */
export const debitRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/wallet-debits",
    operationId: "debitWallet",
    summary: "Debit a wallet under a mandate with the customer freshly authenticated; all or nothing",
    tag: "Wallet debits",
    scopes: ["wallet-debits:write"],
    body: debitWalletBodySchema,
    success: { status: 201, description: "The completed debit operation", schema: operationViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => debitWallet(deps.core, ctx, tx, body),
  }),
  tenantRoute({
    method: "POST",
    path: "/mandates/{uid}/debits",
    operationId: "debitUnderMandate",
    summary:
      "Debit the mandate's wallet on the standing mandate alone; one debit per period of its frequency",
    tag: "Wallet debits",
    scopes: ["wallet-debits:write"],
    params: uidParamsSchema,
    body: debitUnderMandateBodySchema,
    success: {
      status: 201,
      description: "The debit operation: completed, or failed when the wallet could not fund it",
      schema: operationViewSchema,
    },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, params, body }) => debitUnderMandate(deps.core, ctx, tx, params.uid, body),
  }),
];
