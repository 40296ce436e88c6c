import { changeCustomerStatus, changeWalletStatus, decideKycVersion } from "@wallet/ledger-core";
import { kycVersionViewSchema } from "../kyc-versions/schemas.js";
import { operatorRoute, type RouteEntry } from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import {
  customerStatusBodySchema,
  customerStatusViewSchema,
  kycDecisionBodySchema,
  walletStatusBodySchema,
  walletStatusViewSchema,
} from "./customer-schemas.js";

/** Operator API (DESIGN.md section 9): compliance decisions and customer and wallet statuses. */
export const operatorCustomerRoutes: readonly RouteEntry[] = [
  operatorRoute({
    method: "POST",
    path: "/kyc-versions/{uid}/decision",
    operationId: "decideKycVersion",
    summary: "Approve or reject a pending KYC version (409 when it is not pending)",
    tag: "Operator",
    params: uidParamsSchema,
    body: kycDecisionBodySchema,
    success: { status: 200, description: "The decided KYC version", schema: kycVersionViewSchema },
    errorStatuses: [400, 401, 404, 409, 413, 500, 503],
    run: (tx, { deps, params, body }) =>
      decideKycVersion(deps.core, tx, params.uid, body.decision, body.reason ?? null),
  }),
  operatorRoute({
    method: "PATCH",
    path: "/customers/{uid}",
    operationId: "changeCustomerStatus",
    summary: "Set a customer's status; restricted, suspended and closed fire customer.status_changed",
    tag: "Operator",
    params: uidParamsSchema,
    body: customerStatusBodySchema,
    success: { status: 200, description: "The customer's status", schema: customerStatusViewSchema },
    errorStatuses: [400, 401, 404, 413, 500, 503],
    run: (tx, { deps, params, body }) => changeCustomerStatus(deps.core, tx, params.uid, body.status),
  }),
  operatorRoute({
    method: "PATCH",
    path: "/wallets/{uid}",
    operationId: "changeWalletStatus",
    summary: "Set a wallet's status; blocked, frozen, dormant and closed fire wallet.status_changed",
    tag: "Operator",
    params: uidParamsSchema,
    body: walletStatusBodySchema,
    success: { status: 200, description: "The wallet's status", schema: walletStatusViewSchema },
    errorStatuses: [400, 401, 404, 413, 500, 503],
    run: (tx, { deps, params, body }) => changeWalletStatus(deps.core, tx, params.uid, body.status),
  }),
];
