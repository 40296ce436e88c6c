import { auditListLimitMax } from "@wallet/ledger-core";
import * as v from "valibot";
import { amountMinorSchema, boundedString, currencySchema } from "../validation/common-schemas.js";
import { clampedLimitSchema, paginationEntries } from "../validation/pagination.js";

const minor = v.pipe(v.number(), v.safeInteger());

export const tenantParamsSchema = v.strictObject({ tenantId: boundedString(1, 128) });
export const operationParamsSchema = v.strictObject({ uid: boundedString(1, 128) });

export const fundPrefundBodySchema = v.strictObject({
  amountMinor: amountMinorSchema,
  currency: currencySchema,
});

export const prefundQuerySchema = v.strictObject({ currency: currencySchema });

/**
 * GET /audit: newest first, one page at a time: `limit` defaults to 100, and a positive integer
 * above 1000 is clamped to 1000 (as the delivery log's); `page` is 1-based, as in the tenant API.
 */
export const auditQuerySchema = v.strictObject({
  tenantId: v.optional(boundedString(1, 128)),
  limit: v.optional(clampedLimitSchema(auditListLimitMax)),
  page: paginationEntries.page,
});

export const prefundViewSchema = v.object({
  tenantId: v.string(),
  currency: v.string(),
  balanceMinor: minor,
});

/** A sum of minor units: a safe integer, or its decimal digits when it is beyond 2^53 - 1. */
const exactMinor = v.union([minor, v.pipe(v.string(), v.regex(/^-?[0-9]+$/))]);

export const trialBalanceViewSchema = v.object({
  currencies: v.array(
    v.object({
      currency: v.string(),
      debitsMinor: exactMinor,
      creditsMinor: exactMinor,
      netMinor: exactMinor,
    }),
  ),
  balanced: v.boolean(),
});

export const auditListSchema = v.object({
  data: v.array(
    v.object({
      at: v.string(),
      tenantId: v.string(),
      kid: v.nullable(v.string()),
      action: v.string(),
      customerUid: v.nullable(v.string()),
      identifierUids: v.array(v.string()),
      requestId: v.nullable(v.string()),
    }),
  ),
});
