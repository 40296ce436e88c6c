import type { CoreDeps } from "../app/context.js";
import { assertOneOf, refuse } from "../shared/errors.js";
import { assertFreeForm } from "../shared/free-form.js";
import { canonicalJson } from "../shared/jcs.js";
import type { PiiVault } from "../shared/ports.js";
import { storedInstant } from "../shared/time.js";
import { canonicalIdentifierType, maskIdentifier, normalizeIdentifier } from "./masking.js";
import type {
  Agreement,
  AgreementType,
  Identifier,
  IdentifierClass,
  KycReviewType,
  KycVersion,
  RiskRating,
  VerificationStatus,
} from "./model.js";
import {
  agreementTypes,
  identifierClasses,
  kycReviewTypes,
  riskRatings,
  verificationStatuses,
} from "./model.js";

export interface IdentifierInput {
  class: IdentifierClass;
  type: string;
  value: string;
  isPrimary?: boolean | undefined;
  verificationStatus: VerificationStatus;
  verifiedAt?: string | null | undefined;
  issuingCountry?: string | null | undefined;
}

export interface AgreementInput {
  agreementType: AgreementType;
  documentType: string;
  documentVersion: string;
  documentUri: string;
  documentHash: string;
  acceptedAt: string;
  acceptedChannel: string;
  evidence: Record<string, unknown>;
}

export interface KycVersionInput {
  tierCode: string;
  reviewType: KycReviewType;
  verificationSource: string;
  sourceReference: string;
  evidence: Record<string, unknown>;
  riskRating: RiskRating;
}

/** SHA-256 of the canonical (JCS) JSON of the evidence: stands in for evidence that is never returned. */
export const evidenceHashOf = (deps: CoreDeps, evidence: Record<string, unknown>) =>
  deps.hasher.sha256Hex(canonicalJson(evidence));

/** Builds an identifier record; the clear value goes only into the vault's seal. */
export function newIdentifier(
  deps: CoreDeps,
  tenantId: string,
  customerUid: string,
  input: IdentifierInput,
  at: string,
): Identifier {
  assertOneOf("class", input.class, identifierClasses);
  assertOneOf("verificationStatus", input.verificationStatus, verificationStatuses);
  const verified = input.verificationStatus === "verified";
  // Blank: every such value would normalize to "" and be one and the same identifier.
  if (normalizeIdentifier(input.type, input.value) === "") {
    refuse("InvalidRequest", "An identifier's value must not be blank", [{ field: "value", issue: "blank" }]);
  }
  return {
    uid: deps.ids.next("identifier"),
    tenantId,
    customerUid,
    class: input.class,
    type: input.type,
    sealedValue: deps.vault.seal(input.value),
    // The scope is the class and the type without case: `MSISDN` and `msisdn` are one type.
    blindIndex: identifierBlindIndex(deps.vault, tenantId, input.class, input.type, input.value),
    maskedValue: maskIdentifier(input.class, input.type, input.value),
    isPrimary: input.isPrimary ?? false,
    verificationStatus: input.verificationStatus,
    verifiedAt:
      input.verifiedAt == null
        ? verified
          ? at
          : null
        : storedInstant(input.verifiedAt, "verifiedAt", "upper"),
    issuingCountry: input.issuingCountry ?? null,
    validFrom: at,
    validTo: null,
    createdAt: at,
  };
}

/**
 * The blind index of an identifier's value: what the duplicate check of verified values compares,
 * keyed per tenant and per class and type (without case), over the normalized value.
 */
export function identifierBlindIndex(
  vault: PiiVault,
  tenantId: string,
  identifierClass: string,
  type: string,
  value: string,
): string {
  return vault.blindIndex(
    tenantId,
    `${identifierClass}:${canonicalIdentifierType(type)}`,
    normalizeIdentifier(type, value),
  );
}

export function newAgreement(
  deps: CoreDeps,
  tenantId: string,
  customerUid: string,
  input: AgreementInput,
  at: string,
): Agreement {
  assertFreeForm("evidence", input.evidence);
  assertOneOf("agreementType", input.agreementType, agreementTypes);
  return {
    uid: deps.ids.next("agreement"),
    tenantId,
    customerUid,
    agreementType: input.agreementType,
    documentType: input.documentType,
    documentVersion: input.documentVersion,
    documentUri: input.documentUri,
    documentHash: input.documentHash.toLowerCase(),
    status: "accepted",
    acceptedAt: storedInstant(input.acceptedAt, "acceptedAt", "upper"),
    acceptedChannel: input.acceptedChannel,
    evidenceHash: evidenceHashOf(deps, input.evidence),
    createdAt: at,
  };
}

export function newKycVersion(
  deps: CoreDeps,
  tenantId: string,
  customerUid: string,
  input: KycVersionInput,
  at: string,
): KycVersion {
  assertFreeForm("evidence", input.evidence);
  assertOneOf("reviewType", input.reviewType, kycReviewTypes);
  assertOneOf("riskRating", input.riskRating, riskRatings);
  return {
    uid: deps.ids.next("kycVersion"),
    tenantId,
    customerUid,
    tierCode: input.tierCode,
    reviewType: input.reviewType,
    state: "pending",
    verificationSource: input.verificationSource,
    sourceReference: input.sourceReference,
    riskRating: input.riskRating,
    evidenceHash: evidenceHashOf(deps, input.evidence),
    effectiveFrom: null,
    rejectionReason: null,
    createdAt: at,
  };
}
