export const customerStatuses = [
  "pending",
  "active",
  "restricted",
  "suspended",
  "deceased",
  "closed",
] as const;
export type CustomerStatus = (typeof customerStatuses)[number];

export const customerTypes = ["person", "organization"] as const;
export type CustomerType = (typeof customerTypes)[number];

export const identifierClasses = ["contact", "identity_document"] as const;
export type IdentifierClass = (typeof identifierClasses)[number];

export const verificationStatuses = [
  "unverified",
  "pending",
  "verified",
  "rejected",
  "expired",
  "revoked",
] as const;
export type VerificationStatus = (typeof verificationStatuses)[number];

export const riskRatings = ["low", "medium", "high", "prohibited"] as const;
export type RiskRating = (typeof riskRatings)[number];

export interface Customer {
  uid: string;
  tenantId: string;
  status: CustomerStatus;
  customerType: CustomerType;
  displayName: string;
  /** Sealed by the vault (`PiiVault.seal`) over its `YYYY-MM-DD`; null when none was given. */
  dateOfBirth: string | null;
  regionCode: string | null;
  preferredLocale: string;
  clientReference: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

/** An identifier as stored: the clear value only ever inside the vault's seal. */
export interface Identifier {
  uid: string;
  tenantId: string;
  customerUid: string;
  class: IdentifierClass;
  type: string;
  sealedValue: string;
  /** Keyed hash of the normalized value, for the duplicate check within the tenant. */
  blindIndex: string;
  maskedValue: string;
  isPrimary: boolean;
  verificationStatus: VerificationStatus;
  verifiedAt: string | null;
  issuingCountry: string | null;
  validFrom: string;
  validTo: string | null;
  createdAt: string;
}

export const agreementTypes = ["wallet_opening", "privacy", "fee_schedule", "mandate", "other"] as const;
export type AgreementType = (typeof agreementTypes)[number];
export const agreementStatuses = ["accepted", "revoked", "expired", "superseded"] as const;
export type AgreementStatus = (typeof agreementStatuses)[number];

export interface Agreement {
  uid: string;
  tenantId: string;
  customerUid: string;
  agreementType: AgreementType;
  documentType: string;
  documentVersion: string;
  documentUri: string;
  documentHash: string;
  status: AgreementStatus;
  acceptedAt: string;
  acceptedChannel: string;
  evidenceHash: string;
  createdAt: string;
}

export const kycReviewTypes = [
  "onboarding",
  "upgrade",
  "downgrade",
  "periodic_review",
  "event_driven_review",
] as const;
export type KycReviewType = (typeof kycReviewTypes)[number];
export const kycVersionStates = ["pending", "approved", "rejected", "expired", "superseded"] as const;
export type KycVersionState = (typeof kycVersionStates)[number];

export interface KycVersion {
  uid: string;
  tenantId: string;
  customerUid: string;
  tierCode: string;
  reviewType: KycReviewType;
  state: KycVersionState;
  verificationSource: string;
  sourceReference: string | null;
  riskRating: RiskRating | null;
  evidenceHash: string;
  effectiveFrom: string | null;
  rejectionReason: string | null;
  createdAt: string;
}

/** True once the identifier's validTo has come: it is retired. */
export const isRetired = (i: Identifier, now: Date): boolean =>
  i.validTo !== null && Date.parse(i.validTo) <= now.getTime();

/** True for a verified contact identifier inside its validity window: the only payout destinations. */
export function isPayoutEligible(i: Identifier, now: Date): boolean {
  return (
    i.class === "contact" &&
    i.verificationStatus === "verified" &&
    Date.parse(i.validFrom) <= now.getTime() &&
    !isRetired(i, now)
  );
}
