import { payoutOutcomes, suspenseListLimitMax, suspenseStatuses } from "@wallet/ledger-core";
import * as v from "valibot";
import {
  amountMinorSchema,
  boundedString,
  currencySchema,
  instantViewSchema,
  railCodeSchema,
  uidSchema,
} from "../validation/common-schemas.js";
import { clampedLimitSchema, paginationEntries } from "../validation/pagination.js";

const minor = v.pipe(v.number(), v.safeInteger());

/** The provider's own id of a payout or payment; the same one twice is one payment. */
const providerReferenceSchema = boundedString(1, 128);

export const railParamsSchema = v.strictObject({ railCode: railCodeSchema });

/** DESIGN.md section 9: a rail's answer to a payout (phase 2). */
export const payoutResultBodySchema = v.strictObject({
  operationUid: uidSchema,
  outcome: v.picklist(payoutOutcomes, `must be one of ${payoutOutcomes.join(", ")}`),
  providerReference: v.optional(providerReferenceSchema),
});

/**
 * DESIGN.md section 9: an inbound payment. `reference` is what the payer typed, so it is only
 * bounded here: a malformed one is not a bad request from the rail but a payment for suspense.
 */
export const railPaymentBodySchema = v.strictObject({
  reference: boundedString(1, 64),
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  providerReference: providerReferenceSchema,
});

export const railPaymentResultSchema = v.object({
  matched: v.boolean(),
  operationUid: v.nullable(v.string()),
  suspenseUid: v.nullable(v.string()),
});

/**
 * GET /suspense: oldest first, one page at a time: `limit` defaults to 100, and a positive integer
 * above 1000 is clamped to 1000 (as the delivery log's); `page` is 1-based, as in the tenant API.
 */
export const suspenseQuerySchema = v.strictObject({
  status: v.optional(v.picklist(suspenseStatuses, `must be one of ${suspenseStatuses.join(", ")}`)),
  limit: v.optional(clampedLimitSchema(suspenseListLimitMax)),
  page: paginationEntries.page,
});

export const suspenseParamsSchema = v.strictObject({ uid: uidSchema });

/** `refund` sends the money back out through the rail; `apply` credits it to a wallet as a top-up. */
export const resolveSuspenseBodySchema = v.variant(
  "action",
  [
    v.strictObject({ action: v.literal("refund") }),
    v.strictObject({ action: v.literal("apply"), walletUid: uidSchema }),
  ],
  "must be refund or apply",
);

export const suspenseItemViewSchema = v.object({
  uid: v.string(),
  railCode: v.string(),
  tenantId: v.nullable(v.string()),
  reference: v.string(),
  amountMinor: minor,
  currency: v.string(),
  providerReference: v.string(),
  reason: v.string(),
  status: v.picklist(suspenseStatuses),
  createdAt: instantViewSchema,
  resolvedAt: v.nullable(instantViewSchema),
  resolution: v.nullable(
    v.object({
      action: v.picklist(["refund", "apply"]),
      walletUid: v.nullable(v.string()),
      operationUid: v.nullable(v.string()),
    }),
  ),
});

export const suspenseListSchema = v.object({ data: v.array(suspenseItemViewSchema) });
