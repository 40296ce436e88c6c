import { INTENT_LIFETIME_SECONDS_MAX, INTENT_LIFETIME_SECONDS_MIN } from "@wallet/ledger-core";
import * as v from "valibot";
import { operationDetailViewSchema, operationViewSchema } from "../operations/schemas.js";
import {
  amountMinorSchema,
  clientReferenceSchema,
  currencySchema,
  instantViewSchema,
  railCodeSchema,
  uidSchema,
} from "../validation/common-schemas.js";

/** Spec, Limits: an integer number of seconds, 60 .. 86400; outside is 400, never clamped. */
export const expiresInSecondsSchema = v.pipe(
  v.number(),
  v.safeInteger(
    `must be an integer between ${INTENT_LIFETIME_SECONDS_MIN} and ${INTENT_LIFETIME_SECONDS_MAX}`,
  ),
  v.minValue(INTENT_LIFETIME_SECONDS_MIN, `must be at least ${INTENT_LIFETIME_SECONDS_MIN}`),
  v.maxValue(INTENT_LIFETIME_SECONDS_MAX, `must be at most ${INTENT_LIFETIME_SECONDS_MAX}`),
  v.description("Lifetime of the intent in seconds; default the rail's configured lifetime, else 3600."),
);

/** POST /topup-intents body (spec, Endpoint rules). */
export const createTopupIntentBodySchema = v.strictObject({
  walletUid: uidSchema,
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  railCode: railCodeSchema,
  expiresInSeconds: v.optional(expiresInSecondsSchema),
  clientReference: clientReferenceSchema,
});

const intentReferenceSchema = v.pipe(
  v.string(),
  v.regex(/^[0-9]{12}$/, "must be 12 digits"),
  v.description("12 digits, the last a Luhn check digit; the payer quotes it to the rail."),
);

/** The top-up fields an intent always carries (spec, Operation: top-up operation adds). */
const topupEntries = {
  intentReference: intentReferenceSchema,
  expiresAt: instantViewSchema,
  railCode: v.string(),
  payerInstructions: v.nullable(v.string()),
};

/** Spec, Operation with the top-up fields (POST /topup-intents). */
export const topupViewSchema = v.object({ ...operationViewSchema.entries, ...topupEntries });

/** Spec: the top-up detail read adds intentReference and expiresAt to the operation detail. */
export const topupDetailViewSchema = v.object({ ...operationDetailViewSchema.entries, ...topupEntries });
