import type { CoreDeps } from "../app/context.js";
import { emitEvent } from "../events/emit.js";
import { refundTransfers } from "../fees/charges.js";
import { accountKeys } from "../ledger/accounts.js";
import type { Transfer } from "../ledger/journal.js";
import { entriesOf } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import { readOperationDetail } from "../operations/get-operation.js";
import { transitionOperation } from "../operations/lifecycle.js";
import type { Operation, OperationState } from "../operations/model.js";
import type { OperationDetailView } from "../operations/views.js";
import { toOperationView } from "../operations/views.js";
import { assertOneOf, invariant, notFound, refuse } from "../shared/errors.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { PayoutOutcome } from "./model.js";
import { payoutDetailsOf, payoutOutcomes } from "./model.js";

export interface PayoutResultInput {
  railCode: string;
  operationUid: string;
  outcome: PayoutOutcome;
  providerReference?: string | null | undefined;
}

/** The final state each definite outcome leads to; a reversal (operator) presupposes a confirmation. */
const consistentStates: Record<Exclude<PayoutOutcome, "uncertain">, readonly OperationState[]> = {
  confirmed: ["completed", "reversed"],
  failed: ["failed"],
};

/** The payout on this rail, or 404 (unknown uid, another type, another rail look the same). */
export async function loadRailPayout(tx: Tx, railCode: string, operationUid: string): Promise<Operation> {
  const op = await tx.operations.getAny(operationUid);
  if (op?.type !== "payout_b2c" || op.provider?.railCode !== railCode) return notFound("Operation");
  return op;
}

/**
 * Phase 2 of a payout, reported by the rail (the operator API for the sandbox rail). Like a
 * two-phase transfer's post / void:
 * - confirmed: hold -> rail clearing; completed; payout.confirmed;
 * - failed: hold -> wallet and the refundable charges back; failed; payout.failed;
 * - uncertain: nothing moves, stays processing with provider state uncertain; payout.uncertain.
 *   A later definite result resolves it; a second uncertain only records a provider reference
 *   it brings (no second event).
 * A result repeating the final outcome returns the detail and posts nothing; one contradicting it
 * is 409 Conflict.
 */
export async function reportPayoutResult(
  deps: CoreDeps,
  tx: Tx,
  input: PayoutResultInput,
): Promise<OperationDetailView> {
  assertOneOf("outcome", input.outcome, payoutOutcomes);
  assertStorableStrings(input);
  const found = await loadRailPayout(tx, input.railCode, input.operationUid);
  invariant(found.sourceWalletUid, "a payout has its source wallet");
  const walletKey = accountKeys.wallet(found.sourceWalletUid);
  const holdKey = accountKeys.walletHold(found.sourceWalletUid);
  const clearingKey = accountKeys.railClearing(input.railCode);
  // Lock first, then read the state: two results racing for one payout serialize here, and the
  // second sees the first one's outcome instead of settling the hold twice. The rail clearing,
  // fee and tax accounts are locked last: see lockSharedAndPost.
  const locked = await tx.ledger.lockAccounts(found.currency, [walletKey, holdKey]);
  const op = await loadRailPayout(tx, input.railCode, input.operationUid);
  if (op.state !== "processing") {
    // A repeat of the result is answered as it was; one naming another provider reference is not
    // a repeat but a contradiction.
    const sameReference =
      input.providerReference === undefined ||
      (op.provider?.reference ?? null) === null ||
      op.provider?.reference === input.providerReference;
    if (
      input.outcome !== "uncertain" &&
      consistentStates[input.outcome].includes(op.state) &&
      sameReference
    ) {
      return readOperationDetail(tx, op);
    }
    return refuse("Conflict", `The payout is already ${op.state}; the result contradicts it`);
  }
  invariant(op.provider, "a processing payout has its provider block");
  const at = iso(deps.clock.now());
  if (input.outcome === "uncertain" && op.provider.state === "uncertain") {
    // Still uncertain: no second event. A reference the rail gives now is kept, as a definite
    // result's would be (the provider may name the payment only once it has found it).
    const reference = input.providerReference ?? null;
    if (reference !== null && reference !== op.provider.reference) {
      op.provider = { ...op.provider, reference, lastUpdatedAt: at };
      op.updatedAt = at;
      await tx.operations.update(op);
    }
    return readOperationDetail(tx, op);
  }

  const tenant = await tx.tenants.get(op.tenantId);
  invariant(tenant, "an operation's tenant exists");
  const provider = {
    ...op.provider,
    reference: input.providerReference ?? op.provider.reference,
    lastUpdatedAt: at,
  };

  if (input.outcome === "uncertain") {
    op.provider = { ...provider, state: "uncertain" };
    op.updatedAt = at;
    await tx.operations.update(op);
    await emitEvent(deps, tx, tenant, "payout.uncertain", op.uid, "operation", toOperationView(op), at);
    return readOperationDetail(tx, op);
  }

  const details = payoutDetailsOf(op);
  const confirmed = input.outcome === "confirmed";
  const transfers: Transfer[] = confirmed
    ? [{ from: holdKey, to: clearingKey, amountMinor: op.amountMinor, label: "amount" }]
    : [
        { from: holdKey, to: walletKey, amountMinor: op.amountMinor, label: "amount" },
        ...refundTransfers(op.tenantId, walletKey, details.charges),
      ];
  const journal = {
    uid: deps.ids.next("journal"),
    tenantId: op.tenantId,
    operationUid: op.uid,
    currency: op.currency,
    kind: confirmed ? "payout_settle" : "payout_release",
    createdAt: at,
    entries: entriesOf(transfers),
  };
  op.provider = { ...provider, state: confirmed ? "confirmed" : "failed" };
  await transitionOperation(tx, op, confirmed ? "completed" : "failed", at, "provider");
  await emitEvent(
    deps,
    tx,
    tenant,
    confirmed ? "payout.confirmed" : "payout.failed",
    op.uid,
    "operation",
    toOperationView(op),
    at,
  );
  const detail = await readOperationDetail(tx, op);
  await lockSharedAndPost(tx, journal, locked, () => "InsufficientFunds");
  return detail;
}
