import { getOperationDetail, getReceipt, listOperations } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { splitListQuery } from "../validation/pagination.js";
import {
  listOperationsQuerySchema,
  operationDetailViewSchema,
  operationPageSchema,
  receiptViewSchema,
} from "./schemas.js";

export const operationRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "GET",
    path: "/operations",
    operationId: "listOperations",
    summary: "The tenant's operations in any state, newest first by default",
    tag: "Operations",
    scopes: ["operations:read"],
    query: listOperationsQuerySchema,
    success: { status: 200, description: "A page of operations", schema: operationPageSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, query }) => {
      const { filter, page } = splitListQuery(query);
      return listOperations(deps.core, ctx, tx, filter, page);
    },
  }),
  tenantRoute({
    method: "GET",
    path: "/operations/{uid}",
    operationId: "getOperation",
    summary: "An operation with its state timeline",
    tag: "Operations",
    scopes: ["operations:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The operation detail", schema: operationDetailViewSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => getOperationDetail(deps.core, ctx, tx, params.uid),
  }),
  tenantRoute({
    method: "GET",
    path: "/operations/{uid}/receipt",
    operationId: "getReceipt",
    summary: "The receipt of an operation whose money moved; 404 before that",
    tag: "Operations",
    scopes: ["operations:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The receipt", schema: receiptViewSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => getReceipt(deps.core, ctx, tx, params.uid),
  }),
];
