import { submitKycVersion } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { kycVersionViewSchema, submitKycVersionBodySchema } from "./schemas.js";

export const kycVersionRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/customers/{uid}/kyc-versions",
    operationId: "submitKycVersion",
    summary:
      "Append a KYC version: approved at once for an upgrade or downgrade to tier_1 (risk not prohibited), else pending until the compliance review",
    tag: "Customers",
    scopes: ["customers:write"],
    params: uidParamsSchema,
    body: submitKycVersionBodySchema,
    success: { status: 201, description: "The KYC version", schema: kycVersionViewSchema },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, params, body }) => submitKycVersion(deps.core, ctx, tx, params.uid, body),
  }),
];
