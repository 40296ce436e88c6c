import { addAgreement, listAgreements } from "@wallet/ledger-core";
import { agreementInputSchema } from "../customers/schemas.js";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { agreementListSchema, agreementViewSchema } from "./schemas.js";

export const agreementRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/customers/{uid}/agreements",
    operationId: "addAgreement",
    summary: "Record a document acceptance; acceptedChannel portal is refused (422)",
    tag: "Customers",
    scopes: ["customers:write"],
    params: uidParamsSchema,
    // The very schema of onboarding's agreements[] items: the spec gives both the same fields.
    body: agreementInputSchema,
    success: { status: 201, description: "The agreement", schema: agreementViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, params, body }) => addAgreement(deps.core, ctx, tx, params.uid, body),
  }),
  tenantRoute({
    method: "GET",
    path: "/customers/{uid}/agreements",
    operationId: "listAgreements",
    summary: "A customer's document acceptances",
    tag: "Customers",
    scopes: ["customers:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The agreements", schema: agreementListSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => listAgreements(deps.core, ctx, tx, params.uid),
  }),
];
