import { fundPrefund, getPrefund, getTrialBalance, listAudit, reverseOperation } from "@wallet/ledger-core";
import { operationDetailViewSchema } from "../operations/schemas.js";
import { operatorRoute, type RouteEntry } from "../routes/route-entry.js";
import {
  auditListSchema,
  auditQuerySchema,
  fundPrefundBodySchema,
  operationParamsSchema,
  prefundQuerySchema,
  prefundViewSchema,
  tenantParamsSchema,
  trialBalanceViewSchema,
} from "./schemas.js";

/** Operator API (DESIGN.md section 9), the routes this package serves so far. */
export const operatorRoutes: readonly RouteEntry[] = [
  operatorRoute({
    method: "POST",
    path: "/tenants/{tenantId}/prefund",
    operationId: "fundPrefund",
    summary: "Record money received from a tenant into its prefunded balance",
    tag: "Operator",
    params: tenantParamsSchema,
    body: fundPrefundBodySchema,
    success: { status: 200, description: "The prefunded balance after funding", schema: prefundViewSchema },
    errorStatuses: [400, 401, 404, 413, 500, 503],
    run: (tx, { deps, params, body }) => fundPrefund(deps.core, tx, { tenantId: params.tenantId, ...body }),
  }),
  operatorRoute({
    method: "GET",
    path: "/tenants/{tenantId}/prefund",
    operationId: "getPrefund",
    summary: "A tenant's prefunded balance in a currency",
    tag: "Operator",
    params: tenantParamsSchema,
    query: prefundQuerySchema,
    success: { status: 200, description: "The prefunded balance", schema: prefundViewSchema },
    errorStatuses: [400, 401, 404, 500, 503],
    run: (tx, { deps, params, query }) => getPrefund(deps.core, tx, params.tenantId, query.currency),
  }),
  operatorRoute({
    method: "POST",
    path: "/operations/{uid}/reverse",
    operationId: "reverseOperation",
    summary:
      "Reverse a completed operation: what it moved goes back in one reversing journal; completed -> reversed",
    tag: "Operator",
    params: operationParamsSchema,
    success: {
      status: 200,
      description: "The operation's detail, reversed",
      schema: operationDetailViewSchema,
    },
    errorStatuses: [400, 401, 404, 409, 422, 500, 503],
    run: (tx, { deps, params }) => reverseOperation(deps.core, tx, params.uid),
  }),
  operatorRoute({
    method: "GET",
    path: "/ledger/trial-balance",
    operationId: "getTrialBalance",
    summary: "Debits and credits per currency; balanced when every currency nets to zero",
    tag: "Operator",
    success: { status: 200, description: "The trial balance", schema: trialBalanceViewSchema },
    errorStatuses: [400, 401, 500, 503],
    run: (tx) => getTrialBalance(tx),
  }),
  operatorRoute({
    method: "GET",
    path: "/audit",
    operationId: "listAudit",
    summary: "Audit rows of unmasked personal-data reads, newest first, optionally of one tenant",
    tag: "Operator",
    query: auditQuerySchema,
    success: { status: 200, description: "The audit rows", schema: auditListSchema },
    errorStatuses: [400, 401, 500, 503],
    run: (tx, { query }) => listAudit(tx, query),
  }),
];
