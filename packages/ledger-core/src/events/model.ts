/** Event types the service may ever send (spec, Events). No other type is written. */
export const eventTypes = [
  "customer.created",
  "customer.kyc_changed",
  "customer.status_changed",
  "wallet.status_changed",
  "wallet_credit.completed",
  "wallet_debit.completed",
  "wallet_debit.failed",
  "mandate.created",
  "mandate.revoked",
  "mandate.status_changed",
  "mandate.expired",
  "topup.confirmed",
  "topup.expired",
  "payout.confirmed",
  "payout.failed",
  "payout.uncertain",
] as const;
export type EventType = (typeof eventTypes)[number];

export type EventDataKey = "customer" | "wallet" | "operation" | "mandate";

/**
 * An outbox row: written in the same transaction as the change it reports, after the tenant's
 * filter and enabled flag were applied. `body` is the exact envelope JSON sent on every attempt.
 */
export interface OutboxEvent {
  id: string;
  tenantId: string;
  type: EventType;
  /** The resource the event is about; deliveries for one resource are ordered by `seq`. */
  resourceUid: string;
  seq: number;
  dedupKey: string;
  occurredAt: string;
  body: string;
}

export interface OutboxRepository {
  /** Next sequence number for the resource (1-based), read inside the writing transaction. */
  nextSeq(resourceUid: string): Promise<number>;
  append(event: OutboxEvent): Promise<void>;
  /** Events in insertion order (tests, operator log). */
  list(tenantId?: string): Promise<OutboxEvent[]>;
}
