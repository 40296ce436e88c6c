import type { FeeBreakdownLine } from "../fees/fee-engine.js";
import type { Operation } from "../operations/model.js";
import { invariant } from "../shared/errors.js";

export const payoutOutcomes = ["confirmed", "failed", "uncertain"] as const;
export type PayoutOutcome = (typeof payoutOutcomes)[number];

/**
 * What a payout keeps in `Operation.details`. The charges are stored whole (with `refundable`),
 * because a failure refunds what was charged then, whatever the fee schedule says later.
 */
export interface PayoutDetails {
  railCode: string;
  destinationIdentifierUid: string;
  charges: FeeBreakdownLine[];
  /** The quote whose amounts were used, or null when the charges were computed fresh. */
  feeQuoteId: string | null;
}

export function payoutDetailsOf(op: Operation): PayoutDetails {
  invariant(op.type === "payout_b2c", "payout details belong to payouts");
  const d = op.details as Partial<PayoutDetails> | null;
  invariant(
    d &&
      typeof d.railCode === "string" &&
      typeof d.destinationIdentifierUid === "string" &&
      Array.isArray(d.charges),
    "a payout keeps its rail, destination and charges",
  );
  return {
    railCode: d.railCode,
    destinationIdentifierUid: d.destinationIdentifierUid,
    charges: d.charges,
    feeQuoteId: d.feeQuoteId ?? null,
  };
}
