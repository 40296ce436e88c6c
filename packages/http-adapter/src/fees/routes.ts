import { quoteFees } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { feeQuoteViewSchema, quoteFeesBodySchema } from "./schemas.js";

export const feeRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/fees/quote",
    operationId: "quoteFees",
    summary: "Quote the fees and tax of an operation; nothing is charged and no operation is created",
    tag: "Fees",
    scopes: ["wallets:read"],
    // Read-only for the ledger (docs/decisions.md, "Fee quotes"): no Idempotency-Key; each call
    // stores a fresh quote, which a retry cannot turn into a second charge.
    write: false,
    body: quoteFeesBodySchema,
    success: { status: 200, description: "The fee quote, valid five minutes", schema: feeQuoteViewSchema },
    // The spec's list for this route has no 422: quoteFees refuses business rules as 400.
    errorStatuses: [400, 401, 403, 404, 413, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => quoteFees(deps.core, ctx, tx, body),
  }),
];
