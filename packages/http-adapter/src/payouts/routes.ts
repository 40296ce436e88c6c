import { createPayout } from "@wallet/ledger-core";
import { operationViewSchema } from "../operations/schemas.js";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { createPayoutBodySchema } from "./schemas.js";

export const payoutRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/payouts",
    operationId: "createPayout",
    summary: "Pay out to the customer's own verified contact identifier through a rail (phase 1)",
    tag: "Payouts",
    scopes: ["payouts:write"],
    body: createPayoutBodySchema,
    success: {
      status: 202,
      description:
        "The payout in state processing: the wallet is debited for amount + fee + tax and the amount " +
        "held until the rail's result (events payout.confirmed, payout.failed, payout.uncertain)",
      schema: operationViewSchema,
    },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => createPayout(deps.core, ctx, tx, body),
  }),
];
