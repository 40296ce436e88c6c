import type { FeeBreakdownLine } from "../fees/fee-engine.js";
import type { Operation } from "../operations/model.js";
import { invariant } from "../shared/errors.js";

/** Default intent lifetime when neither the request nor the rail sets one (spec, Limits). */
export const DEFAULT_INTENT_LIFETIME_SECONDS = 3600;
export const INTENT_LIFETIME_SECONDS_MIN = 60;
export const INTENT_LIFETIME_SECONDS_MAX = 86_400;

/**
 * What a top-up keeps in `Operation.details`: `railCode` and `payerInstructions` are projected by
 * `toOperationView`; the charges (a topup_c2b fee schedule, if any) are fixed when the intent is
 * issued and taken when the payment matches.
 */
export interface TopupDetails {
  railCode: string;
  payerInstructions: string | null;
  charges: FeeBreakdownLine[];
  /**
   * The suspense item holding the intent's own payment, which came while the wallet or customer
   * could not receive it (the intent is then `held` until the operator applies or refunds it).
   */
  heldSuspenseUid?: string;
}

export function topupDetailsOf(op: Operation): TopupDetails {
  invariant(op.type === "topup_c2b", "top-up details belong to top-ups");
  const d = op.details as Partial<TopupDetails> | null;
  invariant(d && typeof d.railCode === "string", "a top-up keeps its rail");
  return {
    railCode: d.railCode,
    payerInstructions: d.payerInstructions ?? null,
    charges: d.charges ?? [],
    ...(d.heldSuspenseUid === undefined ? {} : { heldSuspenseUid: d.heldSuspenseUid }),
  };
}

/**
 * An intent that ends unpaid (expired, or its held payment refunded) shows no charges: they were
 * the price quoted for a payment that never moved, as for a mandate debit that failed.
 */
export function dropQuotedCharges(op: Operation): void {
  op.feeMinor = 0;
  op.taxMinor = 0;
  op.feeBreakdown = [];
}
