import { listSuspense, receiveRailPayment, reportPayoutResult, resolveSuspense } from "@wallet/ledger-core";
import { operationDetailViewSchema } from "../operations/schemas.js";
import { operatorRoute, type RouteEntry } from "../routes/route-entry.js";
import {
  payoutResultBodySchema,
  railParamsSchema,
  railPaymentBodySchema,
  railPaymentResultSchema,
  resolveSuspenseBodySchema,
  suspenseItemViewSchema,
  suspenseListSchema,
  suspenseParamsSchema,
  suspenseQuerySchema,
} from "./rail-schemas.js";

/**
 * Operator API for payment rails (DESIGN.md sections 4 and 9): what a rail reports (payout
 * results, inbound payments; the sandbox rail's come from here) and the reconciliation of payments
 * that matched no intent. Every call is safe to repeat: a result or payment reported twice posts once.
 */
export const railRoutes: readonly RouteEntry[] = [
  operatorRoute({
    method: "POST",
    path: "/rails/{railCode}/payout-results",
    operationId: "reportPayoutResult",
    summary: "Report a rail's result for a payout: confirmed, failed or uncertain",
    tag: "Operator",
    params: railParamsSchema,
    body: payoutResultBodySchema,
    success: { status: 200, description: "The payout's operation detail", schema: operationDetailViewSchema },
    errorStatuses: [400, 401, 404, 409, 413, 500, 503],
    run: (tx, { deps, params, body }) =>
      reportPayoutResult(deps.core, tx, { railCode: params.railCode, ...body }),
  }),
  operatorRoute({
    method: "POST",
    path: "/rails/{railCode}/payments",
    operationId: "receiveRailPayment",
    summary: "Report an inbound payment: credits the matching top-up intent, else goes to suspense",
    tag: "Operator",
    params: railParamsSchema,
    body: railPaymentBodySchema,
    success: {
      status: 200,
      description: "Whether it matched, and the operation it completed or the suspense item it opened",
      schema: railPaymentResultSchema,
    },
    errorStatuses: [400, 401, 404, 413, 500, 503],
    run: (tx, { deps, params, body }) =>
      receiveRailPayment(deps.core, tx, { railCode: params.railCode, ...body }),
  }),
  operatorRoute({
    method: "GET",
    path: "/suspense",
    operationId: "listSuspense",
    summary: "Payments that matched no intent, oldest first, optionally by status",
    tag: "Operator",
    query: suspenseQuerySchema,
    success: { status: 200, description: "The suspense items", schema: suspenseListSchema },
    errorStatuses: [400, 401, 500, 503],
    run: (tx, { deps, query }) => listSuspense(deps.core, tx, query),
  }),
  operatorRoute({
    method: "POST",
    path: "/suspense/{uid}/resolve",
    operationId: "resolveSuspense",
    summary: "Resolve an open suspense item: refund it through the rail or apply it to a wallet",
    tag: "Operator",
    params: suspenseParamsSchema,
    body: resolveSuspenseBodySchema,
    success: { status: 200, description: "The resolved suspense item", schema: suspenseItemViewSchema },
    errorStatuses: [400, 401, 404, 409, 413, 422, 500, 503],
    run: (tx, { deps, params, body }) => resolveSuspense(deps.core, tx, params.uid, body),
  }),
];
