import { amountRules, mandateFrequencies, mandateStatuses } from "@wallet/ledger-core";
import * as v from "valibot";
import { assertionSchema } from "../assertions/schemas.js";
import { agreementInputSchema } from "../customers/schemas.js";
import {
  amountMinorSchema,
  boundedString,
  clientReferenceSchema,
  currencySchema,
  freeFormObjectSchema,
  instantViewSchema,
  isoTimestampSchema,
  startInstantSchema,
  uidSchema,
} from "../validation/common-schemas.js";
import { pagedViewSchema, paginationEntries } from "../validation/pagination.js";

/** The acceptance recorded with a mandate: an agreement without agreementType (always `mandate`). */
export const mandateAgreementSchema = v.omit(agreementInputSchema, ["agreementType"]);

/**
 * POST /mandates body (spec, Endpoint rules). The fields the Mandate resource returns as nullable
 * (fixedOrMaxAmountMinor, validTo, replacesMandateUid) also accept null, meaning absent. The
 * cross-field rules (amount required unless formula, validTo after validFrom) are the core's, as
 * 400 with the field named; a formula rule is 422.
 */
export const createMandateBodySchema = v.strictObject({
  customerUid: uidSchema,
  walletUid: uidSchema,
  beneficiaryEntityCode: boundedString(1, 40),
  clientReference: clientReferenceSchema,
  amountRule: v.picklist(amountRules),
  fixedOrMaxAmountMinor: v.pipe(
    v.optional(v.nullable(amountMinorSchema)),
    v.description("Exact (fixed) or maximum (up_to) debit; required unless amountRule is formula."),
  ),
  formula: v.optional(freeFormObjectSchema),
  frequency: v.picklist(mandateFrequencies),
  currency: currencySchema,
  validFrom: startInstantSchema,
  validTo: v.pipe(
    v.optional(v.nullable(isoTimestampSchema)),
    v.description("After validFrom; absent or null means open-ended."),
  ),
  retryPolicy: v.pipe(
    v.optional(freeFormObjectSchema),
    v.description("Advisory; the service never schedules or retries a debit."),
  ),
  agreement: mandateAgreementSchema,
  assertion: assertionSchema,
  replacesMandateUid: v.optional(v.nullable(uidSchema)),
});

/** POST /mandates/{uid}/revoke body: with an assertion the customer revokes, without it the tenant. */
export const revokeMandateBodySchema = v.strictObject({
  reason: boundedString(1, 500),
  assertion: v.optional(assertionSchema),
});

/** GET /mandates query. */
export const listMandatesQuerySchema = v.strictObject({
  customerUid: v.optional(uidSchema),
  status: v.optional(v.picklist(mandateStatuses)),
  ...paginationEntries,
});

// Response schemas: plain objects (v1 may add fields); tests parse every response with them.

const minor = v.pipe(v.number(), v.safeInteger());

/** Spec, Mandate. */
export const mandateViewSchema = v.object({
  uid: v.string(),
  customerUid: v.string(),
  walletUid: v.string(),
  beneficiaryEntityCode: v.string(),
  clientReference: v.nullable(v.string()),
  amountRule: v.picklist(amountRules),
  fixedOrMaxAmountMinor: v.nullable(minor),
  frequency: v.picklist(mandateFrequencies),
  currency: v.string(),
  validFrom: instantViewSchema,
  validTo: v.nullable(instantViewSchema),
  status: v.picklist(mandateStatuses),
  agreementUid: v.nullable(v.string()),
  replacesMandateUid: v.nullable(v.string()),
  revokedAt: v.nullable(instantViewSchema),
  createdAt: instantViewSchema,
});

/** GET /mandates: `{ data, meta }`. */
export const mandateListSchema = pagedViewSchema(mandateViewSchema);
