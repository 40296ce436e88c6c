export const walletStatuses = [
  "pending",
  "active",
  "debit_blocked",
  "credit_blocked",
  "frozen",
  "dormant",
  "closed",
] as const;
export type WalletStatus = (typeof walletStatuses)[number];

export const walletPurposes = ["main", "incentive", "commission", "savings", "other"] as const;
export type WalletPurpose = (typeof walletPurposes)[number];

export interface Wallet {
  uid: string;
  tenantId: string;
  customerUid: string;
  purpose: WalletPurpose;
  status: WalletStatus;
  currency: string;
  rulesProfileKey: string;
  /** The KYC level whose limits apply; follows the customer's approved version. */
  kycTierCode: string;
  createdAt: string;
}

/** Balance as the API shows it. `availableMinor` is the only figure a debit is authorized against. */
export interface WalletBalance {
  walletUid: string;
  currency: string;
  currentMinor: number;
  heldMinor: number;
  availableMinor: number;
  status: WalletStatus;
  /** When the balance last changed (the wallet's creation when it never moved). */
  asOf: string;
}
