import type { CoreDeps } from "../app/context.js";
import { readOperationDetail } from "../operations/get-operation.js";
import type { OperationDetailView } from "../operations/views.js";
import type { PayoutInstruction } from "../rails/payment-rail.js";
import { invariant } from "../shared/errors.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { payoutDetailsOf } from "./model.js";
import { loadRailPayout } from "./report-payout-result.js";

/**
 * The argument of `PaymentRail.sendPayout` for a payout: opens the destination's sealed value.
 * The clear value goes to the adapter only; callers never log it.
 */
export async function buildPayoutInstruction(
  deps: CoreDeps,
  tx: Tx,
  railCode: string,
  operationUid: string,
): Promise<PayoutInstruction> {
  const op = await loadRailPayout(tx, railCode, operationUid);
  const details = payoutDetailsOf(op);
  const destination = await tx.identifiers.get(op.tenantId, details.destinationIdentifierUid);
  invariant(destination, "a payout's destination identifier exists");
  return {
    operationUid: op.uid,
    railCode: details.railCode,
    amountMinor: op.amountMinor,
    currency: op.currency,
    destination: { type: destination.type, value: deps.vault.open(destination.sealedValue) },
    reference: op.clientReference ?? op.uid,
  };
}

/**
 * Records that the rail accepted a payout for processing (provider state initiated -> pending, with
 * its reference when it gave one). Only a processing payout still `initiated` changes: an answer
 * that arrives after the result is ignored.
 */
export async function recordPayoutSubmission(
  deps: CoreDeps,
  tx: Tx,
  input: { railCode: string; operationUid: string; providerReference: string | null },
): Promise<OperationDetailView> {
  const op = await loadRailPayout(tx, input.railCode, input.operationUid);
  if (op.state === "processing" && op.provider?.state === "initiated") {
    const at = iso(deps.clock.now());
    op.provider = {
      ...op.provider,
      state: "pending",
      reference: input.providerReference ?? op.provider.reference,
      lastUpdatedAt: at,
    };
    op.updatedAt = at;
    await tx.operations.update(op);
  }
  return readOperationDetail(tx, op);
}
