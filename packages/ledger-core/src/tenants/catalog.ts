/**
 * The operator's catalog, seeded from the config file and identical in every process:
 * KYC levels, wallet profiles, rails, beneficiaries and fee schedules.
 */
export interface KycLevel {
  code: string;
  name: string;
  currency: string;
  maxBalanceMinor: number;
  /** null = the level sets no limit. */
  maxSingleTxnMinor: number | null;
  aggregateDailyLimitMinor: number;
  monthlyOutLimitMinor: number | null;
  /** An amountMinor above this needs two_factor/step_up and a transaction binding. */
  twoFactorThresholdMinor: number;
}

export interface WalletProfile {
  key: string;
  name: string;
  currency: string;
}

/**
 * What a rail is: `sandbox`, whose results come from the operator API or the config's automatic
 * outcomes, with no provider behind it; `provider`, a real payment provider, whose payouts the
 * composition root hands to its `PaymentRail` adapter and whose results and payments that
 * integration reports (the operator API can still report them, e.g. to settle an uncertain payout).
 */
export const railKinds = ["sandbox", "provider"] as const;
export type RailKind = (typeof railKinds)[number];

export interface Rail {
  code: string;
  kind: RailKind;
  currency: string;
  status: "active" | "inactive";
  payouts: boolean;
  payins: boolean;
  intentLifetimeSeconds: number | null;
  payerInstructions: string | null;
}

export interface Beneficiary {
  entityCode: string;
  name: string;
  canCollect: boolean;
}

export type FeeComponent =
  | { label: string; type: "flat"; amountMinor: number; refundable: boolean }
  | { label: string; type: "percentage"; rateBps: number; refundable: boolean }
  | { label: string; type: "vat"; rateBps: number; appliesToLabel: string | null; refundable: boolean };

export interface FeeSchedule {
  ruleCode: string;
  versionNo: number;
  operationType: string;
  railCode: string | null;
  currency: string;
  components: FeeComponent[];
}

export interface Catalog {
  kycLevels: KycLevel[];
  walletProfiles: WalletProfile[];
  rails: Rail[];
  beneficiaries: Beneficiary[];
  feeSchedules: FeeSchedule[];
}

export const findKycLevel = (c: Catalog, code: string) => c.kycLevels.find((l) => l.code === code) ?? null;
export const findProfile = (c: Catalog, key: string) => c.walletProfiles.find((p) => p.key === key) ?? null;
export const findRail = (c: Catalog, code: string) => c.rails.find((r) => r.code === code) ?? null;
