import { createMandate, getMandate, listMandates, revokeMandate } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { splitListQuery } from "../validation/pagination.js";
import {
  createMandateBodySchema,
  listMandatesQuerySchema,
  mandateListSchema,
  mandateViewSchema,
  revokeMandateBodySchema,
} from "./schemas.js";

/** Mandates (spec: Mandate, POST/GET /mandates, revoke). Debits under a mandate are in `debits/`. */
export const mandateRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/mandates",
    operationId: "createMandate",
    summary: "Register a mandate with its acceptance; active once validFrom has passed, else pending",
    tag: "Mandates",
    scopes: ["mandates:write"],
    body: createMandateBodySchema,
    success: { status: 201, description: "The mandate", schema: mandateViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => createMandate(deps.core, ctx, tx, body),
  }),
  tenantRoute({
    method: "GET",
    path: "/mandates",
    operationId: "listMandates",
    summary: "The tenant's mandates, newest first; a customer outside the account matches nothing",
    tag: "Mandates",
    scopes: ["mandates:read"],
    query: listMandatesQuerySchema,
    success: { status: 200, description: "A page of mandates", schema: mandateListSchema },
    errorStatuses: [400, 401, 403, 429, 500, 503],
    run: (tx, { deps, ctx, query }) => {
      const { filter, page } = splitListQuery(query);
      return listMandates(deps.core, ctx, tx, filter, page);
    },
  }),
  tenantRoute({
    method: "GET",
    path: "/mandates/{uid}",
    operationId: "getMandate",
    summary: "A mandate",
    tag: "Mandates",
    scopes: ["mandates:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The mandate", schema: mandateViewSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => getMandate(deps.core, ctx, tx, params.uid),
  }),
  tenantRoute({
    method: "POST",
    path: "/mandates/{uid}/revoke",
    operationId: "revokeMandate",
    summary: "Revoke a mandate (terminal); with an assertion the revocation is the customer's",
    tag: "Mandates",
    scopes: ["mandates:write"],
    params: uidParamsSchema,
    body: revokeMandateBodySchema,
    success: { status: 200, description: "The revoked mandate", schema: mandateViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, params, body }) => revokeMandate(deps.core, ctx, tx, params.uid, body),
  }),
];
