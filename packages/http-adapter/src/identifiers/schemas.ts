import { verificationStatuses } from "@wallet/ledger-core";
import * as v from "valibot";
import { identifierInputEntries, identifierSummarySchema } from "../customers/schemas.js";
import { instantViewSchema, isoTimestampSchema, uidSchema } from "../validation/common-schemas.js";

export const identifierParamsSchema = v.strictObject({ uid: uidSchema, iid: uidSchema });

/** POST /customers/{uid}/identifiers: the onboarding item, but `isPrimary` may be left out (false). */
export const addIdentifierBodySchema = v.strictObject({
  ...identifierInputEntries,
  isPrimary: v.optional(v.boolean()),
});

/**
 * PATCH /customers/{uid}/identifiers/{iid}. The `verifiedAt` key is required and may be null, so a
 * client cannot leave a verification date behind by forgetting the field; the core refuses null
 * when the status is verified.
 */
export const updateIdentifierBodySchema = v.strictObject({
  verificationStatus: v.picklist(verificationStatuses),
  verifiedAt: v.pipe(
    v.nullable(isoTimestampSchema),
    v.description("Required key; an ISO-8601 timestamp, or null unless verificationStatus is verified."),
  ),
  validTo: v.optional(v.pipe(isoTimestampSchema, v.description("Retires the identifier at that instant."))),
});

/** Spec, Identifier (detail): the raw value is never returned, only `maskedValue`. */
export const identifierViewSchema = v.object({
  ...identifierSummarySchema.entries,
  issuingCountry: v.nullable(v.string()),
  verifiedAt: v.nullable(instantViewSchema),
  validFrom: instantViewSchema,
  validTo: v.nullable(instantViewSchema),
  payoutEligible: v.pipe(
    v.boolean(),
    v.description("True for a verified contact identifier inside its validity window."),
  ),
});

export const identifierListSchema = v.object({ data: v.array(identifierViewSchema) });
