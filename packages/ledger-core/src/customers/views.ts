import type { KycLevel } from "../tenants/catalog.js";
import type { WalletBalance, WalletPurpose, WalletStatus } from "../wallets/model.js";
import type { Agreement, Customer, CustomerStatus, CustomerType, Identifier, KycVersion } from "./model.js";
import { isPayoutEligible } from "./model.js";

export interface IdentifierSummaryView {
  uid: string;
  class: Identifier["class"];
  type: string;
  maskedValue: string;
  isPrimary: boolean;
  verificationStatus: Identifier["verificationStatus"];
}

export interface IdentifierView extends IdentifierSummaryView {
  issuingCountry: string | null;
  verifiedAt: string | null;
  validFrom: string;
  validTo: string | null;
  payoutEligible: boolean;
}

/** Response of POST /customers. */
export interface CustomerView {
  uid: string;
  status: CustomerStatus;
  customerType: CustomerType;
  displayName: string;
  walletUid: string;
  kycTierCode: string;
  rulesProfileKey: string;
  identifiers: IdentifierSummaryView[];
  clientReference: string | null;
  createdAt: string;
}

/** Response of GET /customers/{uid}. */
export interface CustomerSummaryView {
  uid: string;
  status: CustomerStatus;
  customerType: CustomerType;
  displayName: string;
  kyc: {
    tierCode: string;
    tierName: string;
    riskRating: KycVersion["riskRating"];
    approvedAt: string | null;
    limits: {
      currency: string;
      maxBalanceMinor: number;
      maxSingleTxnMinor: number | null;
      aggregateDailyLimitMinor: number;
      monthlyOutLimitMinor: number | null;
    };
  } | null;
  wallets: {
    walletUid: string;
    purpose: WalletPurpose;
    status: WalletStatus;
    currency: string;
    rulesProfileKey: string;
    balance: Omit<WalletBalance, "walletUid" | "status"> | null;
  }[];
  identifiers: (IdentifierSummaryView & { value: string | null })[];
  agreements: { agreementType: Agreement["agreementType"]; documentVersion: string; acceptedAt: string }[];
  mandatesCount: number;
  clientReference: string | null;
  createdAt: string;
}

export const toIdentifierSummaryView = (i: Identifier): IdentifierSummaryView => ({
  uid: i.uid,
  class: i.class,
  type: i.type,
  maskedValue: i.maskedValue,
  isPrimary: i.isPrimary,
  verificationStatus: i.verificationStatus,
});

export const toIdentifierView = (i: Identifier, now: Date): IdentifierView => ({
  ...toIdentifierSummaryView(i),
  issuingCountry: i.issuingCountry,
  verifiedAt: i.verifiedAt,
  validFrom: i.validFrom,
  validTo: i.validTo,
  payoutEligible: isPayoutEligible(i, now),
});

export const kycSummaryOf = (
  version: KycVersion,
  level: KycLevel,
): NonNullable<CustomerSummaryView["kyc"]> => ({
  tierCode: level.code,
  tierName: level.name,
  riskRating: version.riskRating,
  approvedAt: version.effectiveFrom,
  limits: {
    currency: level.currency,
    maxBalanceMinor: level.maxBalanceMinor,
    maxSingleTxnMinor: level.maxSingleTxnMinor,
    aggregateDailyLimitMinor: level.aggregateDailyLimitMinor,
    monthlyOutLimitMinor: level.monthlyOutLimitMinor,
  },
});

/** The customer data key of events: no personal data. */
export const customerEventData = (c: Customer) => ({ uid: c.uid, status: c.status });
