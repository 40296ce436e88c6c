import {
  agreementTypes,
  customerStatuses,
  customerTypes,
  identifierClasses,
  riskRatings,
  verificationStatuses,
  walletPurposes,
  walletStatuses,
} from "@wallet/ledger-core";
import * as v from "valibot";
import {
  boundedString,
  clientReferenceSchema,
  countryCodeSchema,
  freeFormObjectSchema,
  instantViewSchema,
  isoDateSchema,
  isoTimestampSchema,
  sha256HexSchema,
} from "../validation/common-schemas.js";

/**
 * The fields of a new identifier, shared by onboarding (identifiers[] items) and
 * POST /customers/{uid}/identifiers; they differ only in whether `isPrimary` is required.
 */
export const identifierInputEntries = {
  class: v.picklist(identifierClasses),
  type: boundedString(1, 40),
  // A value of spaces alone reads as empty, and every empty value would be one duplicate.
  value: v.pipe(
    boundedString(1, 256),
    v.check((s: string) => /\S/.test(s), "must not be blank"),
  ),
  verificationStatus: v.picklist(verificationStatuses),
  verifiedAt: v.optional(isoTimestampSchema),
  issuingCountry: v.optional(countryCodeSchema),
};

/** Spec, Customer onboarding request: identifiers[] items (`isPrimary` required). */
export const identifierInputSchema = v.strictObject({
  ...identifierInputEntries,
  isPrimary: v.boolean(),
});

/** Spec, Agreement: all fields required; `acceptedChannel` portal is refused by the core (422). */
export const agreementInputSchema = v.strictObject({
  agreementType: v.picklist(agreementTypes),
  documentType: boundedString(1, 40),
  documentVersion: boundedString(1, 40),
  documentUri: boundedString(1, 500),
  documentHash: sha256HexSchema,
  acceptedAt: isoTimestampSchema,
  acceptedChannel: boundedString(1, 40),
  evidence: freeFormObjectSchema,
});

/**
 * The fields of a KYC version request but `reviewType`, shared by onboarding (`kyc`, review type
 * onboarding only) and POST /customers/{uid}/kyc-versions (every review type but onboarding).
 */
export const kycVersionInputEntries = {
  tierCode: boundedString(1, 64),
  verificationSource: boundedString(1, 100),
  sourceReference: boundedString(1, 160),
  evidence: freeFormObjectSchema,
  riskRating: v.picklist(riskRatings),
};

export const onboardingKycSchema = v.strictObject({
  ...kycVersionInputEntries,
  reviewType: v.picklist(["onboarding"]),
});

/** POST /customers body. */
export const onboardCustomerBodySchema = v.strictObject({
  customerType: v.picklist(customerTypes),
  displayName: boundedString(1, 200),
  dateOfBirth: v.optional(isoDateSchema),
  regionCode: v.optional(boundedString(1, 40)),
  preferredLocale: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$/, "must be a BCP-47 language tag")),
  ),
  identifiers: v.pipe(v.array(identifierInputSchema), v.maxLength(20, "must hold at most 20 items")),
  kyc: onboardingKycSchema,
  agreements: v.pipe(v.array(agreementInputSchema), v.maxLength(20, "must hold at most 20 items")),
  rulesProfileKey: v.optional(boundedString(1, 64)),
  clientReference: v.optional(clientReferenceSchema),
  metadata: v.optional(freeFormObjectSchema),
});

// Response schemas: hand-written to match the core's views; tests parse every response with them.
// Plain (not strict) objects: under v1 fields may be added to payloads, so the document must not
// promise `additionalProperties: false` to clients.

/** Spec, Customer: identifiers[] items; the Identifier detail extends it. */
export const identifierSummarySchema = v.object({
  uid: v.string(),
  class: v.picklist(identifierClasses),
  type: v.string(),
  maskedValue: v.string(),
  isPrimary: v.boolean(),
  verificationStatus: v.picklist(verificationStatuses),
});

/** Spec, Customer (response of POST /customers). */
export const customerViewSchema = v.object({
  uid: v.string(),
  status: v.picklist(customerStatuses),
  customerType: v.picklist(customerTypes),
  displayName: v.string(),
  walletUid: v.string(),
  kycTierCode: v.string(),
  rulesProfileKey: v.string(),
  identifiers: v.array(identifierSummarySchema),
  clientReference: v.nullable(v.string()),
  createdAt: instantViewSchema,
});

const minor = v.pipe(v.number(), v.safeInteger());

/** Spec, Customer summary (GET /customers/{uid}). */
export const customerSummaryViewSchema = v.object({
  uid: v.string(),
  status: v.picklist(customerStatuses),
  customerType: v.picklist(customerTypes),
  displayName: v.string(),
  kyc: v.nullable(
    v.object({
      tierCode: v.string(),
      tierName: v.string(),
      riskRating: v.nullable(v.picklist(riskRatings)),
      approvedAt: v.nullable(instantViewSchema),
      limits: v.object({
        currency: v.string(),
        maxBalanceMinor: minor,
        maxSingleTxnMinor: v.nullable(minor),
        aggregateDailyLimitMinor: minor,
        monthlyOutLimitMinor: v.nullable(minor),
      }),
    }),
  ),
  wallets: v.array(
    v.object({
      walletUid: v.string(),
      purpose: v.picklist(walletPurposes),
      status: v.picklist(walletStatuses),
      currency: v.string(),
      rulesProfileKey: v.string(),
      balance: v.nullable(
        v.object({
          currency: v.string(),
          currentMinor: minor,
          heldMinor: minor,
          availableMinor: minor,
          asOf: v.string(),
        }),
      ),
    }),
  ),
  identifiers: v.array(
    v.object({
      ...identifierSummarySchema.entries,
      value: v.pipe(
        v.nullable(v.string()),
        v.description(
          "Clear text only with scope customers:pii and class contact; every unmasked read is audited.",
        ),
      ),
    }),
  ),
  agreements: v.array(
    v.object({
      agreementType: v.picklist(agreementTypes),
      documentVersion: v.string(),
      acceptedAt: instantViewSchema,
    }),
  ),
  mandatesCount: minor,
  clientReference: v.nullable(v.string()),
  createdAt: instantViewSchema,
});
