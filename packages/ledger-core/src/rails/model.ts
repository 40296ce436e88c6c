/**
 * An inbound payment reported by a rail, kept once per (railCode, providerReference) so a payment
 * reported twice is credited once.
 */
export interface RailPayment {
  railCode: string;
  providerReference: string;
  reference: string;
  amountMinor: number;
  currency: string;
  receivedAt: string;
  /** The top-up it completed, or null when it went to suspense. */
  operationUid: string | null;
  suspenseUid: string | null;
}

export interface RailPaymentRepository {
  /** Inserts the payment; false (and nothing written) when the rail already reported it. */
  insertIfNew(p: RailPayment): Promise<boolean>;
  get(railCode: string, providerReference: string): Promise<RailPayment | null>;
}

export const suspenseStatuses = ["open", "refunded", "applied"] as const;
export type SuspenseStatus = (typeof suspenseStatuses)[number];

/** A payment that matched no live intent: held on `suspense:{railCode}` for reconciliation. */
export interface SuspenseItem {
  uid: string;
  railCode: string;
  /** The tenant of the intent the reference named, when one was found. */
  tenantId: string | null;
  reference: string;
  amountMinor: number;
  currency: string;
  providerReference: string;
  /** Why it did not match: unknown_reference, expired, amount_mismatch, currency_mismatch, wallet_cannot_receive... */
  reason: string;
  status: SuspenseStatus;
  createdAt: string;
  resolvedAt: string | null;
  /** refund: back to the payer via the rail; apply: credited to this wallet. */
  resolution: { action: "refund" | "apply"; walletUid: string | null; operationUid: string | null } | null;
}

/** One page of the suspense items, of every status or of one. */
export interface SuspenseListQuery {
  status?: SuspenseStatus | undefined;
  /** At most this many items. */
  limit: number;
  /** After skipping this many. */
  offset: number;
}

/** Operator API `GET /suspense`: `limit` defaults to 100; a larger one is clamped to 1000. */
export const suspenseListLimitDefault = 100;
export const suspenseListLimitMax = 1000;

export interface SuspenseRepository {
  insert(item: SuspenseItem): Promise<void>;
  update(item: SuspenseItem): Promise<void>;
  get(uid: string): Promise<SuspenseItem | null>;
  /**
   * Oldest first: by `createdAt`, then `uid` (a total, stable order). The store applies the
   * bound.
   */
  list(query: SuspenseListQuery): Promise<SuspenseItem[]>;
}
