import { addIdentifier, listIdentifiers, updateIdentifier } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import {
  addIdentifierBodySchema,
  identifierListSchema,
  identifierParamsSchema,
  identifierViewSchema,
  updateIdentifierBodySchema,
} from "./schemas.js";

export const identifierRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/customers/{uid}/identifiers",
    operationId: "addIdentifier",
    summary: "Attach an identifier to a customer; isPrimary true demotes the previous primary of its class",
    tag: "Customers",
    scopes: ["customers:write"],
    params: uidParamsSchema,
    body: addIdentifierBodySchema,
    success: { status: 201, description: "The identifier", schema: identifierViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, params, body }) => addIdentifier(deps.core, ctx, tx, params.uid, body),
  }),
  tenantRoute({
    method: "GET",
    path: "/customers/{uid}/identifiers",
    operationId: "listIdentifiers",
    summary: "A customer's identifiers, values masked",
    tag: "Customers",
    scopes: ["customers:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The identifiers", schema: identifierListSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => listIdentifiers(deps.core, ctx, tx, params.uid),
  }),
  tenantRoute({
    method: "PATCH",
    path: "/customers/{uid}/identifiers/{iid}",
    operationId: "updateIdentifier",
    summary: "Update an identifier's verification; validTo retires it",
    tag: "Customers",
    scopes: ["customers:write"],
    params: identifierParamsSchema,
    body: updateIdentifierBodySchema,
    success: { status: 200, description: "The identifier", schema: identifierViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, params, body }) =>
      updateIdentifier(deps.core, ctx, tx, params.uid, params.iid, body),
  }),
];
