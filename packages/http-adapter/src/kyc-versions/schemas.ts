import { kycReviewTypes, kycVersionStates, riskRatings } from "@wallet/ledger-core";
import * as v from "valibot";
import { kycVersionInputEntries } from "../customers/schemas.js";
import { instantViewSchema } from "../validation/common-schemas.js";

/** Review types a tenant may submit after onboarding (onboarding itself only comes with POST /customers). */
export const laterReviewTypes = ["upgrade", "downgrade", "periodic_review", "event_driven_review"] as const;

/** POST /customers/{uid}/kyc-versions: the onboarding `kyc` fields with any later review type. */
export const submitKycVersionBodySchema = v.strictObject({
  ...kycVersionInputEntries,
  reviewType: v.picklist(laterReviewTypes),
});

/** Spec, KYC version (response): the evidence is never returned; `evidenceHash` stands in. */
export const kycVersionViewSchema = v.object({
  uid: v.string(),
  customerUid: v.string(),
  tierCode: v.string(),
  reviewType: v.picklist(kycReviewTypes),
  state: v.picklist(kycVersionStates),
  verificationSource: v.string(),
  sourceReference: v.nullable(v.string()),
  riskRating: v.nullable(v.picklist(riskRatings)),
  evidenceHash: v.pipe(v.string(), v.description("SHA-256 hex of the canonical (RFC 8785) evidence JSON.")),
  effectiveFrom: v.pipe(v.nullable(instantViewSchema), v.description("Set when the version is approved.")),
  createdAt: instantViewSchema,
});
