import type { SuspenseItem, SuspenseStatus } from "./model.js";

/** A suspense item as the operator API shows it. It holds no personal data (references, amounts). */
export interface SuspenseItemView {
  uid: string;
  railCode: string;
  tenantId: string | null;
  reference: string;
  amountMinor: number;
  currency: string;
  providerReference: string;
  reason: string;
  status: SuspenseStatus;
  createdAt: string;
  resolvedAt: string | null;
  resolution: SuspenseItem["resolution"];
}

export const toSuspenseItemView = (s: SuspenseItem): SuspenseItemView => ({
  uid: s.uid,
  railCode: s.railCode,
  tenantId: s.tenantId,
  reference: s.reference,
  amountMinor: s.amountMinor,
  currency: s.currency,
  providerReference: s.providerReference,
  reason: s.reason,
  status: s.status,
  createdAt: s.createdAt,
  resolvedAt: s.resolvedAt,
  resolution: s.resolution ? { ...s.resolution } : null,
});

/**
 * Why a payment went to suspense. `intent_closed`: the intent was already paid;
 * `charges_not_covered`: the top-up's charges exceed what the wallet would hold.
 */
export const suspenseReasons = [
  "invalid_reference",
  "unknown_reference",
  "rail_mismatch",
  "expired",
  "intent_closed",
  "currency_mismatch",
  "amount_mismatch",
  "wallet_cannot_receive",
  "limit_exceeded",
  "max_balance_exceeded",
  "charges_not_covered",
] as const;
export type SuspenseReason = (typeof suspenseReasons)[number];

/**
 * Journals of money no tenant can be named for (a payment quoting an unknown reference) carry
 * this tenant id: `Journal.tenantId` is required and no real tenant id is empty.
 */
export const UNATTRIBUTED_TENANT_ID = "";
