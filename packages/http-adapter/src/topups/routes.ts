import { createTopupIntent, getTopupIntent } from "@wallet/ledger-core";
import { type RouteEntry, tenantRoute } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import { createTopupIntentBodySchema, topupDetailViewSchema, topupViewSchema } from "./schemas.js";

export const topupRoutes: readonly RouteEntry[] = [
  tenantRoute({
    method: "POST",
    path: "/topup-intents",
    operationId: "createTopupIntent",
    summary: "Issue a top-up intent: a 12-digit reference the payer quotes to the rail",
    tag: "Top-ups",
    scopes: ["topup-intents:write"],
    body: createTopupIntentBodySchema,
    success: {
      status: 201,
      description:
        "The topup_c2b operation in state pending_provider with its reference, expiry and payer " +
        "instructions; no money moves until a matching payment (event topup.confirmed)",
      schema: topupViewSchema,
    },
    errorStatuses: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503],
    run: (tx, { deps, ctx, body }) => createTopupIntent(deps.core, ctx, tx, body),
  }),
  tenantRoute({
    method: "GET",
    path: "/topup-intents/{uid}",
    operationId: "getTopupIntent",
    summary: "A top-up intent: the operation detail with intentReference and expiresAt",
    tag: "Top-ups",
    scopes: ["operations:read"],
    params: uidParamsSchema,
    success: { status: 200, description: "The top-up operation detail", schema: topupDetailViewSchema },
    errorStatuses: [400, 401, 403, 404, 429, 500, 503],
    run: (tx, { deps, ctx, params }) => getTopupIntent(deps.core, ctx, tx, params.uid),
  }),
];
