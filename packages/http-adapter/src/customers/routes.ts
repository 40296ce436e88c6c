import { getCustomerSummary, onboardCustomer } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { customerSummaryViewSchema, customerViewSchema, onboardCustomerBodySchema } from "./schemas.js";

export const customerRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/customers",
    operationId: "onboardCustomer",
    summary: "Onboard a customer and open the main wallet",
    tag: "Customers",
    scopes: ["customers:write"],
    body: onboardCustomerBodySchema,
    success: { status: 201, description: "The customer", schema: customerViewSchema },
    errorStatuses: [400, 401, 403, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => onboardCustomer(deps.core, ctx, tx, body),
  }),
  tenantRoute({
    method: "GET",
    path: "/customers/{uid}",
    operationId: "getCustomer",
    summary: "Customer summary; contact values in clear text with scope customers:pii",
    tag: "Customers",
    scopes: ["customers:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The customer summary", schema: customerSummaryViewSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) =>
      getCustomerSummary(deps.core, ctx, tx, params.uid, { unmask: ctx.scopes.includes("customers:pii") }),
  }),
];
