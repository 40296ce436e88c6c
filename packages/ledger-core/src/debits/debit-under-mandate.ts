import type { CoreDeps, RequestContext } from "../app/context.js";
import { loadMandate } from "../mandates/read-mandates.js";
import {
  assertAmountRule,
  assertMandateDebitable,
  collectingBeneficiary,
  frequencyPeriodStart,
} from "../mandates/rules.js";
import { assertClientReferenceUnused } from "../operations/client-reference.js";
import type { OperationView } from "../operations/views.js";
import { refuse } from "../shared/errors.js";
import { assertPositiveAmount } from "../shared/money.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertMovementAllowed, assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import type { DebitPlan } from "./record-debit.js";
import { debitCharges, fundedDebit, fundsCover, lockDebitAccounts, recordDebit } from "./record-debit.js";

export interface DebitUnderMandateInput {
  walletUid: string;
  amountMinor: number;
  currency: string;
  clientReference: string;
}

const periodNames = {
  daily: "UTC day",
  on_due_date: "UTC day",
  weekly: "ISO week",
  monthly: "calendar month",
  one_time: "mandate",
  ad_hoc: "request",
} as const;

const frequencyExceeded = (message: string): never => refuse("MandateFrequencyExceeded", message);

/**
 * POST /mandates/{uid}/debits: debits the mandate's wallet on the standing mandate alone (no
 * assertion). One debit per UTC period of the mandate's frequency; a failed attempt does not
 * consume the period. A wallet that cannot fund it still gets its operation, created -> failed
 * (wallet_debit.failed), and the route answers 201 with it. A one_time mandate completes with its
 * debit.
 * Refusals: 404 mandate, 409 clientReference reused, 422 another wallet, mandate not active or
 * outside its window, currency, amount rule, beneficiary, MandateFrequencyExceeded, statuses,
 * KYC limits.
 */
export async function debitUnderMandate(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  mandateUid: string,
  input: DebitUnderMandateInput,
): Promise<OperationView> {
  assertPositiveAmount(input.amountMinor);
  const tenantId = ctx.tenant.id;
  const requested = await loadMandate(tx, ctx, mandateUid);
  if (input.walletUid !== requested.walletUid) {
    refuse("UnprocessableEntity", "walletUid must be the mandate's own wallet", [
      { field: "walletUid", issue: "not the mandate's wallet" },
    ]);
  }
  const party = await loadWalletParty(deps, tx, tenantId, requested.walletUid);
  // Read again under the wallet's lock: a revocation or suspension committed meanwhile is seen, and
  // one still running waits for this debit (it locks the wallet first: lockMandateForChange).
  const mandate = await loadMandate(tx, ctx, mandateUid);
  await assertClientReferenceUnused(tx, tenantId, "wallet_debit", input.clientReference);
  if (mandate.frequency === "one_time" && mandate.status === "completed") {
    frequencyExceeded("The one_time mandate has already completed its debit");
  }
  const now = deps.clock.now();
  assertMandateDebitable(mandate, now);
  assertWalletCurrency(party.wallet, input.currency);
  assertAmountRule(mandate, input.amountMinor);
  const beneficiary = collectingBeneficiary(deps.catalog, mandate.beneficiaryEntityCode);

  const plan: DebitPlan = {
    party,
    mandate,
    beneficiary,
    amountMinor: input.amountMinor,
    clientReference: input.clientReference,
    authorization: "mandate",
  };
  const balances = await lockDebitAccounts(tx, plan);
  // Counted only now, under the wallet's lock, so two concurrent debits cannot both pass.
  const periodStart = frequencyPeriodStart(mandate.frequency, now);
  if (periodStart !== null) {
    const used = await tx.operations.countMandateDebits(mandate.uid, iso(periodStart));
    if (used > 0) {
      frequencyExceeded(
        mandate.frequency === "one_time"
          ? "The one_time mandate has already been debited"
          : `The mandate allows one debit per ${periodNames[mandate.frequency]}`,
      );
    }
  }
  await assertMovementAllowed(tx, party, "outbound", input.amountMinor, now, balances);
  const charges = debitCharges(deps, plan);
  if (!fundsCover(balances, plan, charges)) {
    return recordDebit(deps, ctx, tx, plan, { state: "failed" }, now);
  }
  if (mandate.frequency === "one_time") {
    // Completed with its debit, written before the debit posts (and takes the shared locks).
    mandate.status = "completed";
    mandate.updatedAt = iso(now);
    await tx.mandates.update(mandate);
  }
  return recordDebit(deps, ctx, tx, plan, fundedDebit(plan, charges, balances), now);
}
