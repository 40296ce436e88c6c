import { invariant } from "../shared/errors.js";

export const operationTypes = [
  "wallet_credit",
  "wallet_debit",
  "payout_b2c",
  "topup_c2b",
  "hold",
  "safeguarding_fund",
  "client_funding_deposit",
  "settlement_sweep",
  "wallet_closure",
  "closed_balance_refund",
  "ledger_adjustment",
  "wallet_transfer",
] as const;
export type OperationType = (typeof operationTypes)[number];

export const operationStates = [
  "created",
  "awaiting_authorization",
  "authorized",
  "held",
  "processing",
  "pending_provider",
  "confirmed",
  "failed",
  "reversed",
  "completed",
] as const;
export type OperationState = (typeof operationStates)[number];

export const finalStates: readonly OperationState[] = ["completed", "failed", "reversed"];

/**
 * The states in which a statement lists an operation that has moved no funds: the final ones, and
 * `held` (a top-up intent whose payment the wallet could not receive yet: it is settled later,
 * and must already be listed then, so that a closed period keeps its rows).
 */
export const statementStates: readonly OperationState[] = [...finalStates, "held"];

/**
 * The state machine as data (DESIGN.md section 3, operation states used):
 * - credits and debits: created -> completed; a refused mandate debit: created -> failed;
 * - payouts: created -> processing -> completed | failed (uncertain keeps processing);
 * - top-ups: created -> pending_provider -> completed | failed (expired); or pending_provider ->
 *   held (its payment came while the wallet could not receive it) -> completed | failed, as the
 *   operator applies or refunds the payment;
 * - an operator reversal: completed -> reversed.
 */
export const transitions: Record<OperationState, readonly OperationState[]> = {
  created: ["completed", "failed", "processing", "pending_provider"],
  awaiting_authorization: [],
  authorized: [],
  held: ["completed", "failed"],
  processing: ["completed", "failed"],
  pending_provider: ["completed", "failed", "held"],
  confirmed: [],
  failed: [],
  reversed: [],
  completed: ["reversed"],
};

export function assertTransition(from: OperationState, to: OperationState): void {
  invariant(transitions[from].includes(to), `operation cannot move from ${from} to ${to}`);
}

export const actorTypes = ["api_client", "admin", "system", "provider", "customer"] as const;
export type ActorType = (typeof actorTypes)[number];

export const providerStates = [
  "created",
  "initiated",
  "pending",
  "confirmed",
  "failed",
  "reversed",
  "uncertain",
  "reconciled",
] as const;
export type ProviderState = (typeof providerStates)[number];

export interface ProviderBlock {
  railCode: string;
  state: ProviderState;
  reference: string | null;
  lastUpdatedAt: string;
}

export interface FeeLine {
  label: string;
  amountMinor: number;
}

export interface Operation {
  uid: string;
  tenantId: string;
  type: OperationType;
  state: OperationState;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  currency: string;
  clientReference: string | null;
  customerUid: string | null;
  /** Wallet the money leaves (debits, payouts). */
  sourceWalletUid: string | null;
  /** Wallet the money enters (credits, top-ups). */
  destinationWalletUid: string | null;
  /** Masked hint of the other party, never clear personal data. */
  counterpartyHint: string | null;
  feeBreakdown: FeeLine[];
  provider: ProviderBlock | null;
  /** The mandate a debit ran under (frequency checks count by it). */
  mandateUid: string | null;
  /** Top-up: the 12-digit reference the payer quotes; unique among live intents. */
  intentReference: string | null;
  /** Top-up: when the intent stops matching payments. */
  expiresAt: string | null;
  /** Extra fields of a type (top-up: railCode, payerInstructions). */
  details: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  completedAt: string | null;
  /** When money first moved for this operation; receipts exist from then on. */
  fundsMovedAt: string | null;
  updatedAt: string;
}

export interface TimelineEvent {
  operationUid: string;
  sequenceNo: number;
  fromState: OperationState | null;
  toState: OperationState;
  occurredAt: string;
  actorType: ActorType | null;
}
