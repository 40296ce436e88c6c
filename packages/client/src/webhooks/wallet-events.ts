// The events the service sends (spec, Events), typed by their `type`: `switch (event.type)`
// narrows `data` to the one key and projection that type carries. Fields may be added under v1.
import type { CustomerSummary, KycVersion, Mandate, Operation, WalletBalance } from "../client/resources.js";
import type { WebhookEnvelope } from "./verify-webhook.js";

/** Every event type the service may send; no other is ever sent. A test holds it to the server's list. */
export const walletEventTypes = [
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
export type WalletEventType = (typeof walletEventTypes)[number];

/** `data.customer`: no personal data, only the customer's uid and status. */
export interface CustomerEventData {
  uid: string;
  status: CustomerSummary["status"];
}

/** `data.customer` of `customer.kyc_changed`: also the KYC version approved or rejected. */
export interface CustomerKycChangedData extends CustomerEventData {
  kycVersionUid: string;
  kycTierCode: string;
  kycVersionState: KycVersion["state"];
  reviewType: KycVersion["reviewType"];
  rejectionReason: string | null;
}

/** `data.wallet` of `wallet.status_changed`. */
export interface WalletEventData {
  uid: string;
  customerUid: string;
  status: WalletBalance["status"];
}

/** `data.mandate`. */
export interface MandateEventData {
  uid: string;
  status: Mandate["status"];
  customerUid: string;
  walletUid: string;
  clientReference: string;
}

type EventOf<T extends WalletEventType, K extends string, D> = WebhookEnvelope<{ [P in K]: D }> & { type: T };

/**
 * A verified delivery (`verifyWebhook`), by type. `data.operation` is the projection every write
 * and GET /operations/{uid} return; treat GET /operations/{uid} as the truth, not arrival order.
 *
 * @example
 * if (event.type === "payout.failed") refund(event.data.operation.uid);
 */
export type WalletEvent =
  | EventOf<"customer.created" | "customer.status_changed", "customer", CustomerEventData>
  | EventOf<"customer.kyc_changed", "customer", CustomerKycChangedData>
  | EventOf<"wallet.status_changed", "wallet", WalletEventData>
  | EventOf<
      | "wallet_credit.completed"
      | "wallet_debit.completed"
      | "wallet_debit.failed"
      | "topup.confirmed"
      | "topup.expired"
      | "payout.confirmed"
      | "payout.failed"
      | "payout.uncertain",
      "operation",
      Operation
    >
  | EventOf<
      "mandate.created" | "mandate.revoked" | "mandate.status_changed" | "mandate.expired",
      "mandate",
      MandateEventData
    >;
