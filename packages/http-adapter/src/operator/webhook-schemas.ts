import { deliveryListLimitMax, deliveryStates, eventTypes } from "@wallet/ledger-core";
import * as v from "valibot";
import { boundedString, instantViewSchema } from "../validation/common-schemas.js";
import { clampedLimitSchema } from "../validation/pagination.js";

/**
 * GET /webhook-deliveries: newest first; `limit` defaults to 100, and a positive integer above 1000
 * is clamped to 1000 however many digits it has, as the tenant API clamps its limit.
 */
export const deliveryListQuerySchema = v.strictObject({
  tenantId: v.optional(boundedString(1, 128)),
  status: v.optional(v.picklist(deliveryStates, `status must be one of ${deliveryStates.join(", ")}`)),
  limit: v.optional(clampedLimitSchema(deliveryListLimitMax)),
});

export const eventParamsSchema = v.strictObject({ eventId: boundedString(1, 128) });

const nullableString = v.nullable(v.string());

/** One row of the delivery log (DESIGN.md section 9), plus what an operator needs to act on it. */
export const deliveryLogRowSchema = v.object({
  eventId: v.string(),
  type: v.picklist(eventTypes),
  dedupKey: v.string(),
  attempts: v.pipe(v.number(), v.safeInteger()),
  status: v.picklist(deliveryStates),
  lastStatusCode: v.nullable(v.pipe(v.number(), v.safeInteger())),
  tenantId: v.string(),
  occurredAt: instantViewSchema,
  /** Short reason of the last failure ("HTTP 500", "timeout", "webhook disabled"); never a secret. */
  lastError: nullableString,
  nextAttemptAt: v.nullable(instantViewSchema),
  lastAttemptAt: v.nullable(instantViewSchema),
  deliveredAt: v.nullable(instantViewSchema),
});

export const deliveryLogSchema = v.object({ data: v.array(deliveryLogRowSchema) });
